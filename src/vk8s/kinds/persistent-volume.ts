import { baseStrategy, resourceOf } from './base-strategy.js';

/** persistentvolumes: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const persistentVolumeStrategy = baseStrategy(resourceOf('', 'v1', 'persistentvolumes'));
