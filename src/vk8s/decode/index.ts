/** Request-body decoding for the vK8s API, as kube-apiserver 1.17 does it. */
export { decodeBody, BODY_MEDIA_TYPES } from './decode-body.js';
export { decodeObject, ObjectDecoder } from './decode-object.js';
export type { DecodeObjectOptions, ExpectedKind } from './decode-object.js';
export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './apply-json-patch.js';
export { patchTypeOf, PATCH_MEDIA_TYPES } from './patch-type-of.js';
export type { PatchType } from './patch-type-of.js';
