/**
 * Server-side printing for the virtual cluster: kube-apiserver 1.17's Table columns and cells
 * per kind, the Table body, and the Accept negotiation that asks for it.
 */
export { buildTable, parseIncludeObject } from './build-table.js';
export { printerFor } from './printer-for.js';
export { parseTableAccept } from './table-accept.js';
export type { TablePrinter } from './table-printer.js';
