import { baseStrategy, resourceOf } from './base-strategy.js';

/** deployments: kube-apiserver 1.17's strategy (defaulting and validation to be completed). */
export const deploymentStrategy = baseStrategy(resourceOf('apps', 'v1', 'deployments'));
