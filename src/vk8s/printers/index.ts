/**
 * Server-side printing for the virtual cluster: kube-apiserver 1.17's Table columns and cells
 * per kind, the Table body, and the Accept negotiation that asks for it.
 */
export { buildTable, parseIncludeObject, type BuildTableOptions, type IncludeObject, type TableListMeta } from './build-table.js';
export { humanDuration } from './human-duration.js';
export { negotiateMediaType, parseAccept, type AcceptClause, type Negotiated } from './media-type-negotiation.js';
export { printerFor } from './printer-for.js';
export { parseTableAccept, type TableAccept } from './table-accept.js';
export type { Cell, ColumnDefinition, FieldDoc, TablePrinter, TableRowCondition } from './table-printer.js';
