import { baseStrategy, resourceOf } from './base-strategy.js';

/** secrets: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const secretStrategy = baseStrategy(resourceOf('', 'v1', 'secrets'));
