import { baseStrategy, resourceOf } from './base-strategy.js';

/** replicasets: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const replicaSetStrategy = baseStrategy(resourceOf('apps', 'v1', 'replicasets'));
