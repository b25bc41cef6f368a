import { jsonDepthExceeds } from '../../common/json-depth.js';

/**
 * How deeply a vK8s request body may nest objects and arrays. The 1.17 kinds nest about 20
 * levels at most (a pod template's affinity terms); decoding, patching, apply and admission
 * walk bodies recursively, so a body nested 100,000 levels deep would overflow the stack there.
 */
const MAX_BODY_DEPTH = 100;

/** The message for a body (or patch) nested deeper than {@link MAX_BODY_DEPTH}, or undefined. */
export function bodyDepthProblem(value: unknown): string | undefined {
  return jsonDepthExceeds(value, MAX_BODY_DEPTH) ? `exceeded max depth: the body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep` : undefined;
}
