import { baseStrategy, resourceOf } from './base-strategy.js';

/** serviceaccounts: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const serviceAccountStrategy = baseStrategy(resourceOf('', 'v1', 'serviceaccounts'));
