/**
 * The resources the virtual cluster serves and, for each, exactly the operations the seed
 * lists (anything else answers 405). Discovery, routing and authorization are derived from
 * this table. Verbs are discovery's names: get, list, watch, create, update, patch, delete,
 * deletecollection.
 */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface Subresource {
  readonly name: 'status' | 'scale' | 'log' | 'exec' | 'portforward';
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

const FULL: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const READ: readonly Verb[] = ['get', 'list', 'watch'];
const scale = (verbs: readonly Verb[]): Subresource => ({ name: 'scale', verbs, kind: 'Scale', group: 'autoscaling', version: 'v1' });
const status = (kind: string, verbs: readonly Verb[] = ['get']): Subresource => ({ name: 'status', verbs, kind });

function resource(r: Partial<ResourceType> & Pick<ResourceType, 'group' | 'version' | 'resource' | 'kind'>): ResourceType {
  return { namespaced: true, verbs: FULL, shortNames: [], categories: [], subresources: [], platformWritten: false, allNamespaces: false, ...r };
}

export const RESOURCES: readonly ResourceType[] = [
  resource({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', shortNames: ['deploy'], categories: ['all'], subresources: [status('Deployment'), scale(['get', 'patch', 'update'])] }),
  resource({ group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', verbs: READ, shortNames: ['rs'], categories: ['all'], subresources: [status('ReplicaSet'), scale(['get'])], platformWritten: true }),
  resource({ group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', shortNames: ['sts'], categories: ['all'], subresources: [status('StatefulSet'), scale(['get', 'patch', 'update'])] }),
  resource({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', categories: ['all'], subresources: [status('Job')] }),
  resource({ group: 'batch', version: 'v1beta1', resource: 'cronjobs', kind: 'CronJob', shortNames: ['cj'], categories: ['all'], subresources: [status('CronJob', ['get', 'patch', 'update'])], allNamespaces: true }),
  resource({
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    verbs: READ,
    shortNames: ['po'],
    categories: ['all'],
    platformWritten: true,
    subresources: [
      status('Pod'),
      { name: 'log', verbs: ['get'], kind: 'Pod' },
      { name: 'exec', verbs: ['create', 'get'], kind: 'PodExecOptions' },
      { name: 'portforward', verbs: ['create', 'get'], kind: 'PodPortForwardOptions' },
    ],
  }),
  resource({ group: '', version: 'v1', resource: 'services', kind: 'Service', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['svc'], categories: ['all'], subresources: [status('Service')] }),
  resource({ group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', verbs: READ, shortNames: ['ep'], platformWritten: true }),
  resource({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret' }),
  resource({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'] }),
  resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', shortNames: ['pvc'] }),
  resource({ group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'], allNamespaces: true }),
  resource({ group: '', version: 'v1', resource: 'events', kind: 'Event', verbs: READ, shortNames: ['ev'], platformWritten: true, allNamespaces: true }),
  resource({ group: '', version: 'v1', resource: 'nodes', kind: 'Node', verbs: READ, namespaced: false, shortNames: ['no'], subresources: [status('Node')], platformWritten: true }),
  resource({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', verbs: READ, namespaced: false, shortNames: ['ns'], platformWritten: true }),
  resource({ group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', verbs: READ, namespaced: false, shortNames: ['pv'], subresources: [status('PersistentVolume')], platformWritten: true }),
];

/** `""/v1` for core, `apps/v1` otherwise. */
export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

export function findResource(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.resource === plural);
}

/** The group-versions served, in discovery order (preferred version first). */
export function servedGroupVersions(): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of RESOURCES) seen.set(groupVersion(r.group, r.version), { group: r.group, version: r.version });
  return [...seen.values()];
}

/** The OpenAPI definition of a kind: `io.k8s.api.apps.v1.Deployment`. */
export function definitionOf(resource: Pick<ResourceType, 'group' | 'version' | 'kind'>): string {
  return `io.k8s.api.${resource.group === '' ? 'core' : resource.group}.${resource.version}.${resource.kind}`;
}
