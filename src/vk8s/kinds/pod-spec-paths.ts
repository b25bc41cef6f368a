import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';

/** Path and file-mode rules shared by volume sources, downward-API files and volume mounts. */

/** A file mode: 0–0777. */
export function validateMode(mode: number | undefined, field: string): StatusCause[] {
  if (mode == null || (mode >= 0 && mode <= 0o777)) return [];
  return [fieldError.invalid(field, mode, 'must be a number between 0 and 0777 (octal), both inclusive')];
}

/** validatePathNoBacksteps: no `..` path element. */
export function validateNoBacksteps(path: string, field: string): StatusCause[] {
  return path.split('/').includes('..') ? [fieldError.invalid(field, path, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without `..` elements. */
export function validateLocalDescendingPath(path: string, field: string): StatusCause[] {
  const causes = path.startsWith('/') ? [fieldError.invalid(field, path, 'must be a relative path')] : [];
  return [...causes, ...validateNoBacksteps(path, field)];
}

/** validateLocalNonReservedPath: also not starting with `..`. */
export function validateLocalNonReservedPath(path: string, field: string): StatusCause[] {
  const causes = validateLocalDescendingPath(path, field);
  if (path.startsWith('..') && !path.startsWith('../')) causes.push(fieldError.invalid(field, path, "must not start with '..'"));
  return causes;
}
