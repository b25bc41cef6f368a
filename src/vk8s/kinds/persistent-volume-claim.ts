import { baseStrategy, resourceOf } from './base-strategy.js';

/** persistentvolumeclaims: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const persistentVolumeClaimStrategy = baseStrategy(resourceOf('', 'v1', 'persistentvolumeclaims'));
