import { Quantity } from '../../apimachinery/quantity/quantity.js';

/**
 * A quantity as kube prints `resource.Quantity.String()`: canonical form (`1024Mi` → `1Gi`),
 * `0` when absent. Text that does not parse is shown as it is.
 */
export function quantityText(value: string | undefined): string {
  if (value === undefined) return '0';
  try {
    return Quantity.parse(value).toString();
  } catch {
    return value;
  }
}

/** `helper.GetAccessModesAsString` (1.17): RWO, ROX, RWX in that order, each once. */
export function accessModesText(modes: readonly string[] | undefined): string {
  const present = new Set(modes ?? []);
  return (
    [
      ['ReadWriteOnce', 'RWO'],
      ['ReadOnlyMany', 'ROX'],
      ['ReadWriteMany', 'RWX'],
    ] as const
  )
    .filter(([mode]) => present.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** The beta annotation that still overrides `storageClassName` in 1.17's printers. */
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** `GetPersistentVolumeClass` / `GetPersistentVolumeClaimClass`: the beta annotation, else the field, else "". */
export function storageClassText(annotations: Record<string, string> | undefined, storageClassName: string | undefined): string {
  const annotated = annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  return annotated ?? storageClassName ?? '';
}
