import { baseStrategy, resourceOf } from './base-strategy.js';

/** services: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const serviceStrategy = baseStrategy(resourceOf('', 'v1', 'services'));
