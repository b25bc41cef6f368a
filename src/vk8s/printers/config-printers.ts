import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { KUBE_DEFAULTS, orDefault } from './kube-defaults.js';
import { ageColumn, column, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';

const keysOf = (value: unknown): string[] => (typeof value === 'object' && value !== null ? Object.keys(value) : []);
const keyCount = (value: unknown): number => keysOf(value).length;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Namespaces: Name, Status (`status.phase`, kube's default Active when absent), Age. */
export function namespacePrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [nameColumn(doc), column('Status', 'The status of the namespace'), ageColumn(doc)],
    cells(object: KubeObject, now: Date) {
      const status = object['status'] as { phase?: string } | undefined;
      return [object.metadata.name ?? '', orDefault(status?.phase, KUBE_DEFAULTS.namespacePhase), timestampSince(object.metadata.creationTimestamp, now)];
    },
  };
}

/**
 * Secrets: Name, Type (default Opaque), Data (number of keys), Age. Keys still in `stringData` count too:
 * kube merges them into `data` when it decodes the object, before printing.
 */
export function secretPrinter(doc: FieldDoc): TablePrinter {
  const SECRET = 'io.k8s.api.core.v1.Secret';
  return {
    columns: [nameColumn(doc), column('Type', doc(SECRET, 'type')), column('Data', doc(SECRET, 'data')), ageColumn(doc)],
    cells(object: KubeObject, now: Date) {
      const keys = new Set([...keysOf(object['data']), ...keysOf(object['stringData'])]);
      return [object.metadata.name ?? '', orDefault(text(object['type']), KUBE_DEFAULTS.secretType), keys.size, timestampSince(object.metadata.creationTimestamp, now)];
    },
  };
}

/** ConfigMaps: Name, Data (keys of `data` plus `binaryData`, as since 1.16), Age. */
export function configMapPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [nameColumn(doc), column('Data', doc('io.k8s.api.core.v1.ConfigMap', 'data')), ageColumn(doc)],
    cells(object: KubeObject, now: Date) {
      return [object.metadata.name ?? '', keyCount(object['data']) + keyCount(object['binaryData']), timestampSince(object.metadata.creationTimestamp, now)];
    },
  };
}

/** ServiceAccounts: Name, Secrets (number of secret references), Age. */
export function serviceAccountPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [nameColumn(doc), column('Secrets', doc('io.k8s.api.core.v1.ServiceAccount', 'secrets')), ageColumn(doc)],
    cells(object: KubeObject, now: Date) {
      const secrets = object['secrets'];
      return [object.metadata.name ?? '', Array.isArray(secrets) ? secrets.length : 0, timestampSince(object.metadata.creationTimestamp, now)];
    },
  };
}
