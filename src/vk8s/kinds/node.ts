import { baseStrategy, resourceOf } from './base-strategy.js';

/** nodes: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const nodeStrategy = baseStrategy(resourceOf('', 'v1', 'nodes'));
