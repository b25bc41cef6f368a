import { baseStrategy, resourceOf } from './base-strategy.js';

/** configmaps: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const configMapStrategy = baseStrategy(resourceOf('', 'v1', 'configmaps'));
