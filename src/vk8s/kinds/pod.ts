import { baseStrategy, resourceOf } from './base-strategy.js';

/** pods: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const podStrategy = baseStrategy(resourceOf('', 'v1', 'pods'));
