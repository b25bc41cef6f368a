import type { KubeObject } from '../../apimachinery/object.js';

/**
 * The contract of server-side printing (`metav1.Table`): a printer owns its column
 * definitions and turns one object into one row of cells, exactly as kube-apiserver 1.17's
 * `pkg/printers/internalversion` handlers do with `GenerateOptions{Wide: true}` (the server
 * always sends the wide cells; kubectl hides `priority > 0` columns unless `-o wide`).
 */
export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** `metav1.TableRowCondition`: kube marks finished pods' rows `Completed`. */
export interface TableRowCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

type Cell = string | number | boolean;

export interface TablePrinter {
  readonly columns: readonly ColumnDefinition[];
  /** One cell per column, in column order. `now` is the clock ages are measured against. */
  cells(object: KubeObject, now: Date): Cell[];
  /** Row conditions, when the kind has any (pods). */
  conditions?(object: KubeObject): TableRowCondition[] | undefined;
}

/**
 * Looks up a field's documentation in the Kubernetes 1.17 API definitions, the text kube
 * takes from `<Type>{}.SwaggerDoc()[field]`: e.g. `('io.k8s.api.core.v1.PodStatus', 'podIP')`.
 * Unknown fields give "" (as a missing SwaggerDoc key does).
 */
export type FieldDoc = (definition: string, field: string) => string;

/** Shorthand for a column; type string, no format, priority 0 unless given. */
export function column(name: string, description: string, options: { type?: ColumnDefinition['type']; format?: string; priority?: number } = {}): ColumnDefinition {
  return { name, type: options.type ?? 'string', format: options.format ?? '', description, priority: options.priority ?? 0 };
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The Name column every printer starts with (format "name"). */
export function nameColumn(doc: FieldDoc, priority = 0): ColumnDefinition {
  return column('Name', doc(OBJECT_META, 'name'), { format: 'name', priority });
}

/** The Age column (creation timestamp as a human duration). */
export function ageColumn(doc: FieldDoc): ColumnDefinition {
  return column('Age', doc(OBJECT_META, 'creationTimestamp'));
}

/** The wide Containers and Images columns of the workload printers. */
export function containerColumns(): ColumnDefinition[] {
  return [
    column('Containers', 'Names of each container in the template.', { priority: 1 }),
    column('Images', 'Images referenced by each container in the template.', { priority: 1 }),
  ];
}
