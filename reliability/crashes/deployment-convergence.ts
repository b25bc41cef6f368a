import { SITE_STATUS_ANNOTATION } from '../../src/site-api/site-model.js';

/** The regional edges of `server --local-sites`, where the starter cluster places every Deployment. */
export const LOCAL_REGIONAL_EDGES: readonly string[] = ['local-re-1', 'local-re-2'];

export interface DeploymentView {
  readonly metadata: { readonly name?: string; readonly generation?: number; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: { readonly replicas?: number };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly replicas?: number;
    readonly updatedReplicas?: number;
    readonly readyReplicas?: number;
    readonly availableReplicas?: number;
  };
}

type Counts = Partial<Record<'replicas' | 'updatedReplicas' | 'readyReplicas' | 'availableReplicas', number>>;

/**
 * Why a Deployment has not converged, or undefined when it has: the controller observed its
 * current generation, and every site runs `spec.replicas` pods, all updated, ready and
 * available (replicas are per site, so the totals are `spec.replicas` × sites).
 */
export function notConverged(deployment: DeploymentView, sites: readonly string[]): string | undefined {
  const replicas = deployment.spec?.replicas ?? 1;
  const status = deployment.status ?? {};
  const generation = deployment.metadata.generation ?? 0;
  if ((status.observedGeneration ?? 0) < generation) return `generation ${generation} not observed yet (observed ${status.observedGeneration ?? 'none'})`;
  const total = replicas * sites.length;
  const fields = ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas'] as const;
  const off = fields.filter((f) => (status[f] ?? 0) !== total);
  if (off.length > 0) return `${off.map((f) => `${f} ${status[f] ?? 0}`).join(', ')}; want ${total} (${replicas} on each of ${sites.length} sites)`;
  let perSite: Record<string, Counts>;
  try {
    perSite = JSON.parse(deployment.metadata.annotations?.[SITE_STATUS_ANNOTATION] ?? '{}') as Record<string, Counts>;
  } catch {
    return `unreadable ${SITE_STATUS_ANNOTATION} annotation`;
  }
  for (const site of sites) {
    const counts = perSite[site];
    if (counts === undefined) return `no status from site ${site}`;
    const behind = fields.filter((f) => counts[f] !== replicas);
    if (behind.length > 0) return `site ${site}: ${behind.map((f) => `${f} ${counts[f] ?? 0}`).join(', ')}; want ${replicas}`;
  }
  return undefined;
}
