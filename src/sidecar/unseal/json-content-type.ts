/**
 * Pure: whether a `content-type` header is JSON as the unseal endpoint requires it —
 * `application/json`, in any case, with or without parameters (`; charset=utf-8`).
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  return (header.split(';')[0] ?? '').trim().toLowerCase() === 'application/json';
}
