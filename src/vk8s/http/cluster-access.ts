import type { IncomingHttpHeaders } from 'node:http';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { authenticateClusterRequest } from '../../auth/authenticate.js';
import { authorize } from '../../auth/authorize.js';
import { AuthenticationError, type CredentialService } from '../../auth/credentials.js';
import type { Principal } from '../../auth/principal.js';
import type { StoredObject } from '../../config/envelope.js';
import { objectKey as configKey } from '../../config/keys.js';
import type { KeyValue } from '../../store/types.js';
import type { ClusterRequestContext } from './resource-request.js';

/** Where virtual_k8s objects are read: a watch-fed mirror of the config keys that falls back to the store on a miss. */
export interface VirtualK8sLookup {
  get(key: string): Promise<KeyValue | undefined>;
}

export interface ClusterAccessDependencies {
  readonly credentials: CredentialService;
  readonly virtualK8sObjects: VirtualK8sLookup;
}

interface ClusterRecord {
  readonly uid: string;
  readonly createdAt: string;
}

/** Parsed once per stored value: every request of a cluster reads the same record. */
const records = new WeakMap<KeyValue, ClusterRecord>();

function recordOf(kv: KeyValue): ClusterRecord {
  let record = records.get(kv);
  if (record === undefined) {
    const object = JSON.parse(kv.value) as StoredObject;
    record = { uid: object.system_metadata.uid, createdAt: object.system_metadata.creation_timestamp.replace(/\.\d+Z$/, 'Z') };
    records.set(kv, record);
  }
  return record;
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
  return clusterContextFor(deps, await authenticateCaller(deps, headers, socket), path);
}

type ClusterCaller = Principal & { readonly virtualK8s?: { readonly namespace: string; readonly name: string } };

/** The first half of {@link resolveCluster}: who calls (401 `Unauthorized` when nobody known). */
export async function authenticateCaller(deps: ClusterAccessDependencies, headers: IncomingHttpHeaders, socket: unknown): Promise<ClusterCaller> {
  try {
    return await authenticateClusterRequest(deps.credentials, headers, socket);
  } catch (error) {
    if (error instanceof AuthenticationError) throw StatusError.unauthorized();
    throw error;
  }
}

/** The second half of {@link resolveCluster}: the caller's cluster, if it may reach it (403, 404). */
export async function clusterContextFor(deps: ClusterAccessDependencies, principal: ClusterCaller, path: ClusterPath): Promise<ClusterRequestContext> {
  const { namespace, vk8s } = path;
  const bound = principal.virtualK8s;
  if (bound !== undefined && (bound.namespace !== namespace || bound.name !== vk8s)) {
    throw StatusError.forbidden({ resource: 'virtualclusters', group: '' }, vk8s, `this credential is for virtual cluster ${bound.namespace}/${bound.name}`);
  }
  // From memory (the config watch keeps it current); a miss reads the store, so a cluster
  // created a moment ago by another server is found too.
  const kv = await deps.virtualK8sObjects.get(configKey(principal.tenant, 'virtual_k8s', namespace, vk8s));
  if (kv === undefined) throw StatusError.noSuchPath();
  const record = recordOf(kv);
  const decision = authorize(principal, 'read', namespace);
  if (!decision.allowed) throw StatusError.forbidden({ resource: 'namespaces', group: '' }, namespace, decision.reason);
  return {
    principal,
    cluster: { tenant: principal.tenant, namespace, name: vk8s },
    uid: record.uid,
    createdAt: record.createdAt,
    resourceVersion: String(kv.modRevision),
  };
}
