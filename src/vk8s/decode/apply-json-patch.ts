import jsonpatch from 'fast-json-patch';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { goJsonValueKind } from './go-quote.js';
import { JsonPatchTarget } from './json-patch-target.js';
import { isJsonObject } from './type-node.js';

/** kube-apiserver's limit on the operations of one JSON patch. */
const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * Applies an RFC 6902 JSON patch (already parsed) to a copy of `document` as kube-apiserver
 * 1.17 does with evanphx/json-patch v4.2.0, and returns the copy; neither argument is changed.
 *
 * - a patch that is not an array of objects: 400 BadRequest with Go's decoding error
 *   (`json: cannot unmarshal object into Go value of type jsonpatch.Patch`); `null` is no-op;
 * - more than 10000 operations: 413 `Request entity too large: The allowed maximum operations
 *   in a JSON patch is 10000, got N`;
 * - an operation that does not apply: 422 Invalid, `the server rejected our request due to an
 *   error in our request`, with the library's text as the only cause's message
 *   (`jsonpatch add operation does not apply: doc is missing path: "/a/b"`, `Testing value /x
 *   failed`, `Unexpected kind: bogus`).
 *
 * v4.2.0's semantics are kept where they differ from RFC 6902: `replace` of a missing object
 * key adds it; negative array indexes count from the end; `move`/`copy` into an array index
 * overwrite it; `test` of an object passes when the document's keys are a subset of the
 * value's. Deviations: copies are deep (v4.2.0 aliases them), and inputs that crash v4.2.0
 * (e.g. `test` without `value` on a missing key) fail the test instead of answering 500.
 */
export function applyJsonPatch(document: unknown, patch: unknown): unknown {
  if (patch === null) return structuredClone(document);
  if (!Array.isArray(patch)) throw StatusError.badRequest(`json: cannot unmarshal ${goJsonValueKind(patch)} into Go value of type jsonpatch.Patch`);
  const invalid = (patch as unknown[]).find((op) => op !== null && !isJsonObject(op));
  if (invalid !== undefined) throw StatusError.badRequest(`json: cannot unmarshal ${goJsonValueKind(invalid)} into Go value of type jsonpatch.operation`);
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError('RequestEntityTooLarge', `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  const result = structuredClone(document);
  for (const op of patch as Array<Record<string, unknown> | null>) {
    let error: string | undefined;
    try {
      error = applyOperation(result, op ?? {});
    } catch (thrown) {
      if (!(thrown instanceof jsonpatch.JsonPatchError)) throw thrown;
      error = thrown.message;
    }
    if (error !== undefined) throw patchDoesNotApply(error);
  }
  return result;
}

/** The 422 kube-apiserver answers for a JSON patch that does not apply (NewGenericServerResponse). */
function patchDoesNotApply(message: string): StatusError {
  // Go's StatusCause has only a message here; reason and field are empty and omitted on the wire.
  const cause = { message } as StatusCause;
  return new StatusError('Invalid', 'the server rejected our request due to an error in our request', { causes: [cause] });
}

/** evanphx's string accessors: a missing or non-string member reads as "unknown". */
const member = (op: Record<string, unknown>, name: string): string => {
  const value = op[name];
  return typeof value === 'string' ? value : 'unknown';
};

function applyOperation(document: unknown, op: Record<string, unknown>): string | undefined {
  const kind = member(op, 'op');
  const path = member(op, 'path');
  switch (kind) {
    case 'add': {
      const target = JsonPatchTarget.find(document, path);
      if (target === undefined) return `jsonpatch add operation does not apply: doc is missing path: "${path}"`;
      return target.add(structuredClone(op.value ?? null));
    }
    case 'remove': {
      const target = JsonPatchTarget.find(document, path);
      if (target === undefined) return `jsonpatch remove operation does not apply: doc is missing path: "${path}"`;
      return target.remove();
    }
    case 'replace': {
      const target = JsonPatchTarget.find(document, path);
      if (target === undefined) return `jsonpatch replace operation does not apply: doc is missing path: ${path}`;
      return target.replace(structuredClone(op.value ?? null), path);
    }
    case 'move':
    case 'copy':
      return moveOrCopy(document, op, kind, path);
    case 'test':
      return test(document, op, path);
    default:
      return `Unexpected kind: ${kind}`;
  }
}

function moveOrCopy(document: unknown, op: Record<string, unknown>, kind: 'move' | 'copy', path: string): string | undefined {
  const from = member(op, 'from');
  const source = JsonPatchTarget.find(document, from);
  if (source === undefined) return `jsonpatch ${kind} operation does not apply: doc is missing from path: ${from}`;
  const got = source.get();
  if ('error' in got) return got.error;
  if (kind === 'move') {
    const removed = source.remove();
    if (removed !== undefined) return removed;
  }
  const destination = JsonPatchTarget.find(document, path);
  if (destination === undefined) return `jsonpatch ${kind} operation does not apply: doc is missing destination path: ${path}`;
  return destination.set(kind === 'copy' ? structuredClone(got.value ?? null) : (got.value ?? null));
}

function test(document: unknown, op: Record<string, unknown>, path: string): string | undefined {
  const target = JsonPatchTarget.find(document, path);
  if (target === undefined) return `jsonpatch test operation does not apply: is missing path: ${path}`;
  const got = target.get();
  if ('error' in got) return got.error;
  const failed = `Testing value ${path} failed`;
  if (!Object.hasOwn(op, 'value')) return failed;
  if (got.value === undefined || got.value === null) return op.value === null ? undefined : failed;
  return goEqual(got.value, op.value) ? undefined : failed;
}

/**
 * evanphx v4.2.0's `lazyNode.equal` from the document's side: objects match when every key of
 * the document's object is in the value's with an equal value; arrays element-wise; scalars by
 * their JSON text.
 */
function goEqual(actual: unknown, expected: unknown): boolean {
  if (isJsonObject(actual)) {
    if (!isJsonObject(expected)) return false;
    return Object.keys(actual).every((key) => {
      if (!Object.hasOwn(expected, key)) return false;
      const a = actual[key];
      const b = expected[key];
      if (a === null || b === null) return a === b;
      return goEqual(a, b);
    });
  }
  if (Array.isArray(actual)) {
    if (!Array.isArray(expected) || actual.length !== expected.length) return false;
    return actual.every((item: unknown, i) => (item === null || expected[i] === null ? item === expected[i] : goEqual(item, expected[i])));
  }
  return JSON.stringify(actual) === JSON.stringify(expected);
}
