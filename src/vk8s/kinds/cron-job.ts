import { baseStrategy, resourceOf } from './base-strategy.js';

/** cronjobs: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const cronJobStrategy = baseStrategy(resourceOf('batch', 'v1beta1', 'cronjobs'));
