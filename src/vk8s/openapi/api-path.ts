import { splitGroupVersion } from '../http/request-info.js';

/**
 * What a path template of the Kubernetes OpenAPI document addresses, read from its segments:
 * `/api/v1/namespaces/{namespace}/pods/{name}/log` is the `log` subresource of one pod in a
 * namespace; `/apis/apps/v1/watch/namespaces/{namespace}/deployments` the legacy watch path of
 * a namespace's deployments; `/api/v1/namespaces/{name}` one namespace (cluster-scoped).
 */
export interface ApiPath {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** Under `/namespaces/{namespace}/`. */
  readonly namespaced: boolean;
  /** One object (`{name}`), not the collection. */
  readonly named: boolean;
  readonly subresource?: string;
  /** The legacy `/watch/` prefix. */
  readonly watchPrefix: boolean;
}

/**
 * Parses a path template; undefined for anything that is not a resource path of an API
 * group-version (`/version`, `/apis/apps/`, discovery, proxy paths with a trailing `{path}`).
 */
export function parseApiPath(path: string): ApiPath | undefined {
  const prefix = splitGroupVersion(path.split('/').slice(1));
  if (prefix === undefined) return undefined;
  const { group, version } = prefix;
  let rest = prefix.rest;
  const watchPrefix = rest[0] === 'watch';
  if (watchPrefix) rest = rest.slice(1);
  const namespaced = rest[0] === 'namespaces' && rest[1] === '{namespace}' && rest.length > 2;
  if (namespaced) rest = rest.slice(2);
  const [resource, name, subresource, ...extra] = rest;
  if (resource === undefined || resource === '' || resource.startsWith('{') || extra.length > 0) return undefined;
  if (name !== undefined && name !== '{name}') return undefined;
  return { group, version, resource, namespaced, named: name !== undefined, ...(subresource === undefined ? {} : { subresource }), watchPrefix };
}
