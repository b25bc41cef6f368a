import jsonPatch from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { mergePatch } from '../../apimachinery/patch/merge-patch.js';
import type { PatchSchema } from '../../apimachinery/patch/patch-schema.js';
import { PatchError, strategicMergePatch } from '../../apimachinery/patch/strategic-merge.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** The patch format a PATCH's Content-Type names; anything else is 415. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const found = TYPES[type];
  if (found === undefined) {
    throw new StatusError(
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
    );
  }
  return found;
}

/** Parses a patch body: JSON, or YAML for apply patches. */
export function parsePatchBody(raw: Buffer | undefined, type: PatchType): unknown {
  const text = raw?.toString('utf8') ?? '';
  try {
    return type === 'apply' ? (parseYaml(text) as unknown) : (JSON.parse(text) as unknown);
  } catch (error) {
    throw StatusError.badRequest(`error decoding patch: ${(error as Error).message}`);
  }
}

/**
 * Applies a json-patch, merge-patch or strategic-merge-patch to the current object's JSON
 * (never mutating it), with kube-apiserver's errors for malformed patches.
 */
export function patchJson(current: unknown, type: Exclude<PatchType, 'apply'>, patch: unknown, schema: PatchSchema): unknown {
  switch (type) {
    case 'json': {
      if (!Array.isArray(patch)) throw StatusError.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
      try {
        return jsonPatch.applyPatch(structuredClone(current), patch as jsonPatch.Operation[], true, true).newDocument;
      } catch (error) {
        throw new StatusError('Invalid', `the server rejected our request due to an error in our request`, {
          causes: [{ reason: 'FieldValueInvalid', message: (error as Error).message.split('\n')[0] ?? 'invalid json patch', field: '' }],
        });
      }
    }
    case 'merge':
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw StatusError.badRequest('json: cannot unmarshal array into Go value of type map[string]interface {}');
      return mergePatch(current, patch);
    case 'strategic':
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw StatusError.badRequest('json: cannot unmarshal array into Go value of type map[string]interface {}');
      try {
        return strategicMergePatch(current, patch, schema);
      } catch (error) {
        if (error instanceof PatchError) throw StatusError.badRequest(error.message);
        throw error;
      }
  }
}
