import { groupVersion, type ResourceType, type Subresource, type Verb } from '../apimachinery/resource-type.js';

/**
 * The resources the virtual cluster serves and, for each, exactly the operations the seed
 * lists (anything else answers 405). Discovery, routing and authorization are derived from
 * this table. Verbs are discovery's names: get, list, watch, create, update, patch, delete,
 * deletecollection.
 */
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
      { name: 'attach', verbs: ['create', 'get'], kind: 'PodAttachOptions' },
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
  // Its labels and annotations are the users' (Pod Security's labels among them); the rest is the platform's.
  resource({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', verbs: [...READ, 'patch', 'update'], namespaced: false, shortNames: ['ns'], platformWritten: true }),
  resource({ group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', verbs: READ, namespaced: false, shortNames: ['pv'], subresources: [status('PersistentVolume')], platformWritten: true }),
];

export function findResource(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.resource === plural);
}

/** The group-versions served, in discovery order (preferred version first). */
export function servedGroupVersions(): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of RESOURCES) seen.set(groupVersion(r.group, r.version), { group: r.group, version: r.version });
  return [...seen.values()];
}
