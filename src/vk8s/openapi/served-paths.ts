import type { ResourceType, Verb } from '../../apimachinery/resource-type.js';
import { parseApiPath, type ApiPath } from './api-path.js';

type Json = Record<string, unknown>;

const OPERATIONS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
const COLLECTION_ONLY: readonly Verb[] = ['list', 'watch'];

/**
 * The discovery verb an operation of the 1.17 document implements, from its
 * `x-kubernetes-action` (and, for `connect` subresources such as exec, its HTTP method:
 * GET is `get`, POST `create`). Undefined for HEAD/OPTIONS proxying and unknown actions.
 */
export function operationVerb(method: string, action: unknown): Verb | undefined {
  switch (action) {
    case 'get':
    case 'list':
    case 'patch':
    case 'delete':
    case 'deletecollection':
      return action;
    case 'watch':
    case 'watchlist':
      return 'watch';
    case 'post':
      return 'create';
    case 'put':
      return 'update';
    case 'connect':
      return ({ get: 'get', post: 'create', put: 'update', patch: 'patch', delete: 'delete' } as Partial<Record<string, Verb>>)[method];
    default:
      return undefined;
  }
}

/**
 * The verbs the virtual cluster serves on a path, from the resources table: a resource's
 * verbs on its own paths, a subresource's verbs on its paths, only list and watch on the
 * all-namespaces paths of a namespaced resource (and only when it is served across
 * namespaces), only watch under the legacy `/watch/` prefix.
 */
export function servedVerbs(path: ApiPath, resources: readonly ResourceType[]): readonly Verb[] {
  const resource = resources.find((r) => r.group === path.group && r.version === path.version && r.resource === path.resource);
  if (resource === undefined) return [];
  let verbs: readonly Verb[];
  if (path.subresource !== undefined) {
    if (path.watchPrefix) return [];
    verbs = resource.subresources.find((s) => s.name === path.subresource)?.verbs ?? [];
  } else {
    verbs = resource.verbs;
  }
  if (resource.namespaced && !path.namespaced) {
    if (!resource.allNamespaces || path.named || path.subresource !== undefined) return [];
    verbs = verbs.filter((v) => COLLECTION_ONLY.includes(v));
  } else if (!resource.namespaced && path.namespaced) {
    return [];
  }
  return path.watchPrefix ? verbs.filter((v) => v === 'watch') : verbs;
}

/**
 * The paths of the document the virtual cluster serves, each with exactly its served
 * operations (path-level parameters and `x-` keys kept); a path left with no operation is
 * dropped. Order is the document's.
 */
export function servedPaths(paths: Readonly<Record<string, unknown>>, resources: readonly ResourceType[]): Record<string, Json> {
  const kept: Record<string, Json> = {};
  for (const [template, value] of Object.entries(paths)) {
    const parsed = parseApiPath(template);
    if (parsed === undefined || typeof value !== 'object' || value === null) continue;
    const verbs = servedVerbs(parsed, resources);
    if (verbs.length === 0) continue;
    const item: Json = {};
    let operations = 0;
    for (const [key, member] of Object.entries(value as Json)) {
      if (!(OPERATIONS as readonly string[]).includes(key)) {
        item[key] = member;
        continue;
      }
      const verb = operationVerb(key, (member as Json)['x-kubernetes-action']);
      if (verb !== undefined && verbs.includes(verb)) {
        item[key] = member;
        operations += 1;
      }
    }
    if (operations > 0) kept[template] = item;
  }
  return kept;
}
