import { StatusError } from '../../apimachinery/errors/status-error.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** The PATCH media types kube-apiserver 1.17 accepts for built-in resources, in the order its 415 lists them. */
const PATCH_MEDIA_TYPES: ReadonlyArray<readonly [string, PatchType]> = [
  ['application/json-patch+json', 'json'],
  ['application/merge-patch+json', 'merge'],
  ['application/strategic-merge-patch+json', 'strategic'],
  ['application/apply-patch+yaml', 'apply'],
];

/**
 * Classifies a PATCH request's Content-Type as kube-apiserver 1.17 does: everything from the
 * first `;` on is dropped and the rest must match exactly (no trimming, no case folding);
 * anything else, a missing header included, is 415 UnsupportedMediaType listing the four types.
 */
export function patchTypeOf(contentType: string | undefined): PatchType {
  let mediaType = contentType ?? '';
  const semicolon = mediaType.indexOf(';');
  if (semicolon > 0) mediaType = mediaType.slice(0, semicolon);
  const match = PATCH_MEDIA_TYPES.find(([type]) => type === mediaType);
  if (match === undefined) {
    throw new StatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${PATCH_MEDIA_TYPES.map(([type]) => type).join(', ')}`);
  }
  return match[1];
}
