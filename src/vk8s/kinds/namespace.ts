import { baseStrategy, resourceOf } from './base-strategy.js';

/** namespaces: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const namespaceStrategy = baseStrategy(resourceOf('', 'v1', 'namespaces'));
