import { StatusError } from '../../apimachinery/errors/status-error.js';
import { buildTable, parseIncludeObject, parseTableAccept, printerFor, type TablePrinter } from '../printers/index.js';
import type { TableFormat } from './response-format.js';

/** Tables from the kind printers (kube-apiserver 1.17's columns), one printer per resource. */
export function printerTableFormat(): TableFormat {
  const printers = new Map<string, TablePrinter>();
  return {
    requested(accept, includeObject) {
      const table = parseTableAccept(accept);
      if (table === undefined) return undefined;
      const include = parseIncludeObject(includeObject);
      if (include === undefined) throw StatusError.badRequest(`unrecognized includeObject value: "${includeObject}"`);
      return { includeObject: include, version: table.version };
    },
    render(resource, objects, options) {
      const key = `${resource.group}/${resource.resource}`;
      let printer = printers.get(key);
      if (printer === undefined) {
        printer = printerFor(resource);
        printers.set(key, printer);
      }
      return buildTable(printer, objects, options);
    },
  };
}
