import type { ResourceType } from '../../apimachinery/resource-type.js';
import { definitionRefs, reachableDefinitions } from './reachable-definitions.js';
import { servedPaths } from './served-paths.js';

type Json = Record<string, unknown>;

/** An OpenAPI v2 (swagger) document as the virtual clusters serve it. */
export interface OpenApiV2Spec {
  readonly swagger: string;
  readonly info: Json;
  readonly paths: Record<string, Json>;
  readonly definitions: Record<string, Json>;
  readonly securityDefinitions?: Json;
  readonly security?: readonly unknown[];
}

/** What `trimOpenApi` reads of the full document (the 1.17 swagger). */
export interface OpenApiSource {
  readonly swagger?: string;
  readonly info?: unknown;
  readonly paths: Readonly<Record<string, unknown>>;
  readonly definitions: Readonly<Record<string, Json>>;
  readonly securityDefinitions?: unknown;
  readonly security?: unknown;
}

interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The kinds a table of resources speaks: each kind, its List, and each subresource's kind. */
function servedKinds(resources: readonly ResourceType[]): Set<string> {
  const kinds = new Set<string>();
  const add = (gvk: GroupVersionKind): void => void kinds.add(`${gvk.group}/${gvk.version}/${gvk.kind}`);
  for (const r of resources) {
    add(r);
    add({ ...r, kind: `${r.kind}List` });
    for (const s of r.subresources) add({ group: s.group ?? r.group, version: s.version ?? r.version, kind: s.kind });
  }
  return kinds;
}

function gvksOf(definition: Json): GroupVersionKind[] {
  const value = definition['x-kubernetes-group-version-kind'];
  return Array.isArray(value) ? (value as GroupVersionKind[]) : [];
}

/**
 * The Kubernetes 1.17 document cut down to what the virtual cluster serves: only the paths of
 * served resources with exactly their served operations, and only the definitions reachable
 * from those paths and from the served kinds (their Lists and subresource kinds included:
 * Scale autoscaling/v1, Status, DeleteOptions, WatchEvent, meta types). `swagger`, `info` and
 * the security definitions are kept as they are.
 */
export function trimOpenApi(source: OpenApiSource, resources: readonly ResourceType[]): OpenApiV2Spec {
  const paths = servedPaths(source.paths, resources);
  const kinds = servedKinds(resources);
  const roots = definitionRefs(paths);
  for (const [name, definition] of Object.entries(source.definitions)) {
    if (gvksOf(definition).some((g) => kinds.has(`${g.group}/${g.version}/${g.kind}`))) roots.add(name);
  }
  const { security, securityDefinitions } = source;
  return {
    swagger: source.swagger ?? '2.0',
    info: (source.info as Json | undefined) ?? { title: 'Kubernetes', version: 'unversioned' },
    paths,
    definitions: reachableDefinitions(source.definitions, roots),
    ...(securityDefinitions === undefined ? {} : { securityDefinitions: securityDefinitions as Json }),
    ...(Array.isArray(security) ? { security } : {}),
  };
}
