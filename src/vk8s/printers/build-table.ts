import type { KubeObject } from '../../apimachinery/object.js';
import type { TablePrinter } from './table-printer.js';

/** `?includeObject=`: what each row carries besides its cells (kube's default is Metadata). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

const INCLUDE_OBJECT: readonly string[] = ['None', 'Metadata', 'Object'];

/**
 * The `includeObject` query parameter as kube reads it: absent or "" is Metadata; anything
 * else unknown is undefined, which kube answers with 400 `unrecognized includeObject value: "<v>"`
 * (only when the table has rows).
 */
export function parseIncludeObject(value: string | undefined): IncludeObject | undefined {
  if (value === undefined || value === '') return 'Metadata';
  return INCLUDE_OBJECT.includes(value) ? (value as IncludeObject) : undefined;
}

interface TableListMeta {
  selfLink?: string;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface BuildTableOptions {
  /** The clock ages are measured against. */
  now: Date;
  includeObject: IncludeObject;
  /** Leave the column definitions out (`null`, as kube sends them): Table watch events after the first. */
  noHeaders?: boolean;
  /** The list's (or, for a single object, the object's) selfLink, resourceVersion, continue, remainingItemCount. */
  listMeta?: TableListMeta;
  /** The `v=` the client accepted: the Table's and the rows' PartialObjectMetadata apiVersion. Default v1. */
  version?: 'v1' | 'v1beta1';
}

function listMetadata(meta: TableListMeta | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if ((meta?.selfLink ?? '') !== '') out['selfLink'] = meta?.selfLink;
  if ((meta?.resourceVersion ?? '') !== '') out['resourceVersion'] = meta?.resourceVersion;
  if ((meta?.continue ?? '') !== '') out['continue'] = meta?.continue;
  if (meta?.remainingItemCount !== undefined) out['remainingItemCount'] = meta.remainingItemCount;
  return out;
}

/**
 * A `meta.k8s.io` Table as kube-apiserver 1.17 serializes it: `metadata` (ListMeta, `{}` when
 * empty), `columnDefinitions` (`null` with `noHeaders`), and one row per object with its
 * cells, its conditions when the printer gives some, and `object`: a PartialObjectMetadata
 * (full ObjectMeta) for Metadata, the object itself for Object, `null` for None (Go encodes
 * the empty RawExtension as null).
 */
export function buildTable(printer: TablePrinter, objects: readonly KubeObject[], options: BuildTableOptions): Record<string, unknown> {
  const apiVersion = `meta.k8s.io/${options.version ?? 'v1'}`;
  const rows = objects.map((object) => {
    const conditions = printer.conditions?.(object);
    let rowObject: unknown;
    switch (options.includeObject) {
      case 'Object':
        rowObject = object;
        break;
      case 'Metadata':
        rowObject = { kind: 'PartialObjectMetadata', apiVersion, metadata: object.metadata };
        break;
      case 'None':
        rowObject = null;
        break;
    }
    return { cells: printer.cells(object, options.now), ...(conditions === undefined ? {} : { conditions }), object: rowObject };
  });
  return {
    kind: 'Table',
    apiVersion,
    metadata: listMetadata(options.listMeta),
    columnDefinitions: options.noHeaders === true ? null : printer.columns.map((c) => ({ ...c })),
    rows,
  };
}
