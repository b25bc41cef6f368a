/** Request-body decoding for the vK8s API, as kube-apiserver 1.17 does it. */
export { decodeBody } from './decode-body.js';
export { decodeObject } from './decode-object.js';
export { applyJsonPatch } from './apply-json-patch.js';
export { patchTypeOf } from './patch-type-of.js';
export type { PatchType } from './patch-type-of.js';
export { bodyDepthProblem } from './body-depth.js';
