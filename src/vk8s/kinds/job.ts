import { baseStrategy, resourceOf } from './base-strategy.js';

/** jobs: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const jobStrategy = baseStrategy(resourceOf('batch', 'v1', 'jobs'));
