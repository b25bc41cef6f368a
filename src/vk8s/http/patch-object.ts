import { parse as parseYaml } from 'yaml';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { mergePatch } from '../../apimachinery/patch/merge-patch.js';
import type { PatchSchema } from '../../apimachinery/patch/patch-schema.js';
import { PatchError, strategicMergePatch } from '../../apimachinery/patch/strategic-merge.js';
import { applyJsonPatch, bodyDepthProblem, type PatchType } from '../decode/index.js';

export { patchTypeOf, type PatchType } from '../decode/index.js';

/**
 * Parses a patch body: JSON, or YAML (a superset of JSON) for apply patches — an apply body
 * that is a JSON object is read as JSON, without the YAML parser's cost. Malformed bodies,
 * YAML aliases expanding beyond the parser's limit and bodies nested more than 100 levels
 * deep are 400 BadRequest, before anything walks the patch recursively.
 */
export function parsePatchBody(raw: Buffer | undefined, type: PatchType): unknown {
  const text = raw?.toString('utf8') ?? '';
  let patch: unknown;
  try {
    patch = type === 'apply' ? parseApplyBody(text) : (JSON.parse(text) as unknown);
  } catch (error) {
    throw StatusError.badRequest(`error decoding patch: ${(error as Error).message}`);
  }
  const tooDeep = bodyDepthProblem(patch);
  if (tooDeep !== undefined) throw StatusError.badRequest(`error decoding patch: ${tooDeep}`);
  return patch;
}

function parseApplyBody(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // A YAML flow mapping that is not JSON: the YAML parser reads it below.
    }
  }
  return parseYaml(text, { maxAliasCount: 100 }) as unknown;
}

function requireMap(patch: unknown): object {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw StatusError.badRequest(`json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch} into Go value of type map[string]interface {}`);
  }
  return patch;
}

/**
 * Applies a json-patch, merge-patch or strategic-merge-patch to the current object's JSON
 * (never mutating it), with kube-apiserver's errors for malformed patches.
 */
export function patchJson(current: unknown, type: Exclude<PatchType, 'apply'>, patch: unknown, schema: PatchSchema): unknown {
  switch (type) {
    case 'json':
      return applyJsonPatch(current, patch);
    case 'merge':
      return mergePatch(current, requireMap(patch));
    case 'strategic':
      try {
        return strategicMergePatch(current, requireMap(patch), schema);
      } catch (error) {
        if (error instanceof PatchError) throw StatusError.badRequest(error.message);
        throw error;
      }
  }
}
