import { baseStrategy, resourceOf } from './base-strategy.js';

/** endpoints: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const endpointsStrategy = baseStrategy(resourceOf('', 'v1', 'endpoints'));
