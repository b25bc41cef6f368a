import type { Verb } from '../../apimachinery/resource-type.js';

/**
 * What a resource request asks for, parsed from its path and method like kube-apiserver's
 * RequestInfoFactory. Paths are relative to the cluster's base URL:
 * `/api/v1/...` or `/apis/{group}/{version}/...`, then optionally `watch/`, then either
 * `namespaces/{ns}/{resource}[/{name}[/{subresource}]]` or `{resource}[/{name}[/{subresource}]]`.
 * `namespaces/{name}[/{sub}]` is the namespace object itself.
 */
export interface RequestInfo {
  readonly verb: Verb | 'deletecollection';
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  /** The namespace in the path (absent for cluster-scoped and all-namespaces requests). */
  readonly namespace?: string;
  readonly name?: string;
  /** The legacy `/watch/` path form was used. */
  readonly watchPath: boolean;
}

/**
 * The group-version a path's segments start with (`api/v1/…` is core, `apis/{group}/{version}/…`
 * a group) and the segments after it; undefined when nothing follows the group-version.
 */
export function splitGroupVersion(segments: readonly string[]): { group: string; version: string; rest: string[] } | undefined {
  if (segments[0] === 'api' && segments.length >= 3) return { group: '', version: segments[1] ?? '', rest: segments.slice(2) };
  if (segments[0] === 'apis' && segments.length >= 4) return { group: segments[1] ?? '', version: segments[2] ?? '', rest: segments.slice(3) };
  return undefined;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** `undefined` when the path is not a resource path (it then answers 404). */
export function parseRequestInfo(method: string, path: string, query: { watch?: string | undefined }): RequestInfo | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  // Only a segment with an escape changes when decoded (a malformed one throws, as before).
  const prefix = splitGroupVersion(path.includes('%') ? segments.map(decodeURIComponent) : segments);
  if (prefix === undefined) return undefined;
  const { group, version } = prefix;
  let rest = prefix.rest;
  const watchPath = rest[0] === 'watch';
  if (watchPath) rest = rest.slice(1);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1];
    // `namespaces/{name}[/status|/finalize]` is the namespace object itself; its name is its namespace.
    if (rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  if (resource === undefined || resource === '' || extra.length > 0) return undefined;
  const watch = watchPath || query.watch === 'true' || query.watch === '1';
  let verb: RequestInfo['verb'];
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = watch ? 'watch' : name === undefined ? 'list' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      return undefined;
  }
  return { verb, group, version, resource, subresource, namespace, name, watchPath };
}
