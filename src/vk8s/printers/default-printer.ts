import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { ageColumn, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';

/** Any kind without its own printer: Name and Age, documented from ObjectMeta. */
export function defaultPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [nameColumn(doc), ageColumn(doc)],
    cells: (object: KubeObject, now: Date) => [object.metadata.name ?? '', timestampSince(object.metadata.creationTimestamp, now)],
  };
}
