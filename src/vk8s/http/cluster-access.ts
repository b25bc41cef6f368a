import type { IncomingHttpHeaders } from 'node:http';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { authenticateRequest } from '../../auth/authenticate.js';
import { authorize } from '../../auth/authorize.js';
import { AuthenticationError, type CredentialService } from '../../auth/credentials.js';
import type { Principal } from '../../auth/principal.js';
import { ConfigError } from '../../config/errors.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../../config/kinds/index.js';
import type { ObjectRegistry } from '../../config/registry.js';
import type { ClusterRequestContext } from './resource-request.js';

export interface ClusterAccessDependencies {
  readonly credentials: CredentialService;
  readonly registry: ObjectRegistry;
}

/** A cluster's base URL: `/api/vk8s/namespaces/{namespace}/{vk8s}`. */
export interface ClusterPath {
  readonly namespace: string;
  readonly vk8s: string;
}

/**
 * Who calls which cluster, for every request of the vK8s API (routes and upgrades alike):
 * - the caller is authenticated from `Authorization: APIToken|Bearer <token>` or the TLS
 *   client certificate on `socket` (401 `Unauthorized` otherwise);
 * - a kubeconfig credential works only for its own cluster (403 on `virtualclusters`);
 * - the caller's tenant must own the virtual_k8s object (404 "could not find the requested
 *   resource" when not, so other tenants' clusters do not exist for it);
 * - the caller needs at least read access to the cluster's namespace (403 on `namespaces`).
 */
export async function resolveCluster(deps: ClusterAccessDependencies, path: ClusterPath, headers: IncomingHttpHeaders, socket: unknown): Promise<ClusterRequestContext> {
  const { namespace, vk8s } = path;
  let principal: Principal & { virtualK8s?: { namespace: string; name: string } };
  try {
    principal = await authenticateRequest(deps.credentials, headers, socket);
  } catch (error) {
    if (error instanceof AuthenticationError) throw StatusError.unauthorized();
    throw error;
  }
  const bound = principal.virtualK8s;
  if (bound !== undefined && (bound.namespace !== namespace || bound.name !== vk8s)) {
    throw StatusError.forbidden({ resource: 'virtualclusters', group: '' }, vk8s, `this credential is for virtual cluster ${bound.namespace}/${bound.name}`);
  }
  const virtualK8s = NAMESPACED_KINDS.get('virtual_k8s') as ConfigKind;
  let object;
  try {
    object = await deps.registry.get({ tenant: principal.tenant, kind: virtualK8s, namespace }, vk8s);
  } catch (error) {
    if (error instanceof ConfigError && error.code === 'NotFound') throw StatusError.noSuchPath();
    throw error;
  }
  const decision = authorize(principal, 'read', namespace);
  if (!decision.allowed) throw StatusError.forbidden({ resource: 'namespaces', group: '' }, namespace, decision.reason);
  return {
    principal,
    cluster: { tenant: principal.tenant, namespace, name: vk8s },
    uid: object.system_metadata.uid,
    createdAt: object.system_metadata.creation_timestamp.replace(/\.\d+Z$/, 'Z'),
    resourceVersion: object.resource_version,
  };
}
