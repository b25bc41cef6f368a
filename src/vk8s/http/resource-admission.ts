import { StatusError } from '../../apimachinery/errors/status-error.js';
import { authorize, type Access } from '../../auth/authorize.js';
import { findResource } from '../resources.js';
import { type ResourceType, type Verb } from '../../apimachinery/resource-type.js';
import type { RequestInfo } from './request-info.js';
import type { ClusterRequestContext } from './resource-request.js';

const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

/**
 * Subresources that open a session in a pod: they need write access whatever the method
 * (kube's RBAC asks `create pods/exec` of WebSocket clients' GETs too since 1.30).
 */
const SESSION_SUBRESOURCES: ReadonlySet<string> = new Set(['exec', 'attach', 'portforward']);

/**
 * The checks of kube-apiserver's handler chain before a resource request reaches its
 * handler, shared by the routes and the pod stream upgrades: the resource must be served
 * (404), the namespace must be the cluster's (403; cluster-scoped resources take none: 404),
 * the verb must be one the seed lists for the resource or subresource (405), and the
 * caller's role must allow it (403). Returns the resource.
 */
export function admitResourceRequest(context: ClusterRequestContext, info: RequestInfo): ResourceType {
  const resource = findResource(info.group, info.version, info.resource);
  if (resource === undefined) throw StatusError.noSuchPath();
  const ref = { resource: resource.resource, group: resource.group };
  checkScope(resource, info, context);
  const verb = allowedVerb(resource, info);
  if (verb === undefined) throw StatusError.methodNotAllowed(info.verb, ref);
  const namespace = context.cluster.namespace;
  // The namespace's labels are its Pod Security policy: changing them is an administrator's.
  const access = resource.resource === 'namespaces' && resource.group === '' && !READ_VERBS.has(verb) ? 'manage' : accessOf(verb, info.subresource);
  const decision = authorize(context.principal, access, namespace);
  if (!decision.allowed) {
    throw StatusError.forbidden(ref, info.name ?? '', `User "${context.principal.user}" cannot ${info.verb} resource "${rbacResource(resource.resource, info.subresource)}" in API group "${resource.group}" in the namespace "${namespace}": ${decision.reason}`);
  }
  return resource;
}

function accessOf(verb: Verb, subresource: string | undefined): Access {
  if (subresource !== undefined && SESSION_SUBRESOURCES.has(subresource)) return 'write';
  return READ_VERBS.has(verb) ? 'read' : 'write';
}

/** The namespace in the path must be the cluster's; cluster-scoped resources take none. */
function checkScope(resource: ResourceType, info: RequestInfo, context: ClusterRequestContext): void {
  const ns = info.namespace;
  const isNamespaceObject = resource.resource === 'namespaces' && resource.group === '';
  if (!resource.namespaced && !isNamespaceObject && ns !== undefined) throw StatusError.noSuchPath();
  if (ns !== undefined && ns !== context.cluster.namespace) {
    const ref = { resource: isNamespaceObject ? 'namespaces' : resource.resource, group: resource.group };
    throw StatusError.forbidden(
      ref,
      isNamespaceObject ? ns : (info.name ?? ''),
      `User "${context.principal.user}" cannot ${info.verb} resource "${rbacResource(ref.resource, info.subresource)}" in API group "${resource.group}" in the namespace "${ns}": this virtual cluster has only the namespace "${context.cluster.namespace}"`,
    );
  }
}

/** How kube's authorizer names what was denied: `pods`, `pods/exec`. */
function rbacResource(resource: string, subresource: string | undefined): string {
  return subresource === undefined ? resource : `${resource}/${subresource}`;
}

/** The discovery verb a request needs, if the seed lists it for this resource (or subresource). */
function allowedVerb(resource: ResourceType, info: RequestInfo): Verb | undefined {
  if (info.subresource !== undefined) {
    if (info.name === undefined) return undefined;
    const sub = resource.subresources.find((s) => s.name === info.subresource);
    if (sub === undefined) return undefined;
    return sub.verbs.includes(info.verb) ? info.verb : undefined;
  }
  const verb = info.verb;
  if (!resource.verbs.includes(verb)) return undefined;
  // Listing or watching across namespaces only where the seed lists it.
  const acrossNamespaces = resource.namespaced && info.namespace === undefined;
  if (acrossNamespaces && !((verb === 'list' || verb === 'watch') && resource.allNamespaces)) return undefined;
  if (info.watchPath && verb !== 'watch') return undefined;
  return verb;
}
