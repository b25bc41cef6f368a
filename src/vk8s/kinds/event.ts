import { baseStrategy, resourceOf } from './base-strategy.js';

/** events: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const eventStrategy = baseStrategy(resourceOf('', 'v1', 'events'));
