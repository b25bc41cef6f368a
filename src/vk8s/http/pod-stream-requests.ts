import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { Logger } from '../../observability/logger.js';
import type { VirtualClusterStorage } from '../cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { findResource } from '../resources.js';
import { podStreamTarget, serveLogs, upgradeRequired, type PodScope, type PodStreamBackend, type SessionTiming, type StreamKind } from '../streams/index.js';
import type { StreamSubresourceHandler } from './resource-dispatch.js';
import type { ClusterRequestContext } from './resource-request.js';

/** What the pod stream endpoints of the vK8s API need. */
export interface PodStreamDependencies {
  readonly storage: VirtualClusterStorage;
  /** What runs the pods (the sites, through their tunnels). */
  readonly backend: PodStreamBackend;
  readonly logger?: Logger;
  readonly timing?: Partial<SessionTiming>;
}

const SESSION_KINDS: ReadonlySet<string> = new Set<StreamKind>(['exec', 'attach', 'portforward']);

/** `exec`, `attach`, `portforward`: the subresources that open a session in a pod (HTTP upgrades). */
export function isSessionKind(subresource: string | undefined): subresource is StreamKind {
  return subresource !== undefined && SESSION_KINDS.has(subresource);
}

/** Where a cluster's pods live on the platform. */
export function podScopeOf(context: ClusterRequestContext): PodScope {
  return { tenant: context.cluster.tenant, namespace: context.cluster.namespace, vk8s: context.cluster.name };
}

/** The pod, read through the platform's storage (404 `pods "<name>" not found`). */
export async function readPod(storage: VirtualClusterStorage, context: ClusterRequestContext, name: string): Promise<KubeObject> {
  const pods = findResource('', 'v1', 'pods');
  const store = pods === undefined ? undefined : storage.storeFor(pods);
  if (store === undefined) throw StatusError.internal('pods are not stored');
  return store.get(context.cluster, name);
}

/**
 * The stream subresources reached through the ordinary routes (`StreamSubresourceHandler`),
 * after admission: `GET …/pods/{name}/log` streams the log (`serveLogs`, the reply taken
 * over); `exec`, `attach` and `portforward` without an upgrade get kube-apiserver's answers in
 * its order: the pod (404), the container and node (400), then 400 `Upgrade request required`.
 */
export function podStreamSubresources(deps: PodStreamDependencies): StreamSubresourceHandler {
  return async (r) => {
    const subresource = r.info.subresource;
    if (r.resource.group !== '' || r.resource.resource !== 'pods' || !(subresource === 'log' || isSessionKind(subresource))) throw StatusError.noSuchPath();
    const pod = await readPod(deps.storage, r.context, r.info.name ?? '');
    const scope = podScopeOf(r.context);
    const query = new URL(r.request.raw.url ?? '/', 'https://localhost').searchParams;
    if (subresource === 'log') {
      r.reply.hijack();
      await serveLogs(r.reply.raw, { pod, scope, query }, deps.backend, deps.logger);
      return;
    }
    podStreamTarget(pod, query.get('container') ?? undefined, scope, subresource);
    throw upgradeRequired();
  };
}
