import type { Strategy } from '../../registry/strategy.js';
import { RESOURCES } from '../resources.js';
import { type ResourceType } from '../../apimachinery/resource-type.js';
import { configMapStrategy } from './config-map.js';
import { cronJobStrategy } from './cron-job.js';
import { deploymentStrategy } from './deployment.js';
import { endpointsStrategy } from './endpoints.js';
import { eventStrategy } from './event.js';
import { jobStrategy } from './job.js';
import { namespaceStrategy } from './namespace.js';
import { nodeStrategy } from './node.js';
import { persistentVolumeClaimStrategy } from './persistent-volume-claim.js';
import { persistentVolumeStrategy } from './persistent-volume.js';
import { podStrategy } from './pod.js';
import { replicaSetStrategy } from './replica-set.js';
import { secretStrategy } from './secret.js';
import { serviceAccountStrategy } from './service-account.js';
import { serviceStrategy } from './service.js';
import { statefulSetStrategy } from './stateful-set.js';

/** One strategy per served resource (the seed's table), keyed by `group/resource`. */
const STRATEGIES: ReadonlyMap<string, Strategy> = new Map(
  [
    deploymentStrategy,
    replicaSetStrategy,
    statefulSetStrategy,
    jobStrategy,
    cronJobStrategy,
    podStrategy,
    serviceStrategy,
    endpointsStrategy,
    secretStrategy,
    configMapStrategy,
    persistentVolumeClaimStrategy,
    serviceAccountStrategy,
    eventStrategy,
    nodeStrategy,
    namespaceStrategy,
    persistentVolumeStrategy,
  ].map((s) => [strategyKey(s.resource), s]),
);

export function strategyKey(resource: Pick<ResourceType, 'group' | 'resource'>): string {
  return `${resource.group}/${resource.resource}`;
}

export function strategyFor(resource: ResourceType): Strategy {
  const strategy = STRATEGIES.get(strategyKey(resource));
  if (strategy === undefined) throw new Error(`no strategy for ${strategyKey(resource)}`);
  return strategy;
}

if (STRATEGIES.size !== RESOURCES.length) throw new Error('every served resource needs exactly one strategy');
