import { RESOURCES, servedGroupVersions } from './resources.js';
import { groupVersion, type ResourceType } from '../apimachinery/resource-type.js';

/**
 * Discovery documents as a 1.17 kube-apiserver emits them: `/api` (APIVersions), `/apis`
 * (APIGroupList) and each group-version's APIResourceList, derived from the resource table.
 */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(): Record<string, unknown> {
  const groups = new Map<string, string[]>();
  for (const { group, version } of servedGroupVersions()) {
    if (group === '') continue;
    groups.set(group, [...(groups.get(group) ?? []), version]);
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups.entries()].map(([name, versions]) => {
      const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
      return { name, versions: entries, preferredVersion: entries[0] };
    }),
  };
}

function entry(r: ResourceType): Array<Record<string, unknown>> {
  const main = {
    name: r.resource,
    singularName: '',
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...r.verbs].sort(),
    ...(r.shortNames.length === 0 ? {} : { shortNames: r.shortNames }),
    ...(r.categories.length === 0 ? {} : { categories: r.categories }),
  };
  const subresources = r.subresources.map((s) => ({
    name: `${r.resource}/${s.name}`,
    singularName: '',
    namespaced: r.namespaced,
    ...(s.group === undefined ? {} : { group: s.group }),
    ...(s.version === undefined ? {} : { version: s.version }),
    kind: s.kind,
    verbs: [...s.verbs].sort(),
  }));
  return [main, ...subresources];
}

/** The APIResourceList of a group-version, or undefined when it is not served. */
export function apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
  const resources = RESOURCES.filter((r) => r.group === group && r.version === version);
  if (resources.length === 0) return undefined;
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources: resources.flatMap(entry) };
}
