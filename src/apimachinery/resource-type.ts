/**
 * A resource type of a Kubernetes-style API: its group, version, plural, kind, scope and the
 * operations it serves. The virtual cluster's table of them is `vk8s/resources.ts`; the
 * generic registry and storage keys speak of resource types without knowing any kind.
 */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface Subresource {
  readonly name: 'status' | 'scale' | 'log' | 'exec' | 'attach' | 'portforward';
  readonly verbs: readonly Verb[];
  /** The kind the subresource speaks (Scale is autoscaling/v1). */
  readonly kind: string;
  readonly group?: string;
  readonly version?: string;
}

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  /** Plural, lower case: the path segment. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly Verb[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly subresources: readonly Subresource[];
  /** Written only by the platform itself (controllers, sites), never with user credentials. */
  readonly platformWritten: boolean;
  /** Also listable and watchable across namespaces (`GET /api/v1/serviceaccounts`). */
  readonly allNamespaces: boolean;
}

/** `""/v1` for core, `apps/v1` otherwise. */
export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** The OpenAPI definition of a kind: `io.k8s.api.apps.v1.Deployment`. */
export function definitionOf(resource: Pick<ResourceType, 'group' | 'version' | 'kind'>): string {
  return `io.k8s.api.${resource.group === '' ? 'core' : resource.group}.${resource.version}.${resource.kind}`;
}
