import { baseStrategy, resourceOf } from './base-strategy.js';

/** statefulsets: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const statefulSetStrategy = baseStrategy(resourceOf('apps', 'v1', 'statefulsets'));
