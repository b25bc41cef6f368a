import { StatusError } from '../../apimachinery/errors/status-error.js';
import { FieldSelectorError, parseFieldSelector, unsupportedFields } from '../../apimachinery/fields/field-selector.js';
import { parseSelector, SelectorParseError } from '../../apimachinery/labels/selector.js';
import type { DeleteRequest } from '../../registry/deletion.js';
import type { ListQuery } from '../../registry/list.js';
import type { PropagationPolicy, Strategy } from '../../registry/strategy.js';

/** Query parameters as fastify gives them: a string, or an array when repeated. */
export type RawQuery = Readonly<Record<string, string | string[] | undefined>>;

export function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

function flag(query: RawQuery, name: string): boolean {
  const value = single(query, name);
  return value === 'true' || value === '1';
}

function nonNegativeInteger(query: RawQuery, name: string): number | undefined {
  const value = single(query, name);
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw StatusError.badRequest(`${name}: Invalid value: "${value}": must be an integer`);
  const number = Number(value);
  if (number < 0) throw StatusError.badRequest(`${name}: Invalid value: ${number}: must be greater than or equal to 0`);
  return number;
}

/** `dryRun`: absent, or `All` (the only value kube-apiserver accepts). */
export function parseDryRun(query: RawQuery): boolean {
  const raw = query.dryRun;
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  for (const value of values) {
    if (value !== 'All') throw StatusError.badRequest(`Invalid dry run value: ${JSON.stringify(values)}: supported values: "All"`);
  }
  return values.length > 0;
}

/**
 * The field manager of a write: `fieldManager`, else (kube 1.17) the user agent up to its
 * first "/" (`kubectl/v1.20.2 (linux/amd64) …` → `kubectl`). At most 128 characters.
 */
export function fieldManagerOf(query: RawQuery, userAgent: string | undefined): string {
  const given = single(query, 'fieldManager');
  if (given !== undefined) {
    if (given.length > 128) throw StatusError.badRequest(`fieldManager: Too long: must have at most 128 bytes`);
    return given;
  }
  return (userAgent ?? 'unknown').split('/')[0]?.slice(0, 128) || 'unknown';
}

/** Label and field selectors, limit, continue and resourceVersion of a list or watch. */
export function parseListQuery(query: RawQuery, strategy: Strategy): ListQuery {
  const labels = single(query, 'labelSelector') ?? '';
  const fields = single(query, 'fieldSelector') ?? '';
  const { group, version, resource } = strategy.resource;
  let labelSelector;
  let fieldSelector;
  try {
    labelSelector = labels === '' ? undefined : parseSelector(labels);
  } catch (error) {
    if (error instanceof SelectorParseError) throw StatusError.badRequest(`unable to parse requirement: ${error.message}`);
    throw error;
  }
  try {
    fieldSelector = fields === '' ? undefined : parseFieldSelector(fields);
  } catch (error) {
    if (error instanceof FieldSelectorError) throw StatusError.badRequest(error.message);
    throw error;
  }
  if (fieldSelector !== undefined) {
    const unknown = unsupportedFields(fieldSelector, supportedFieldNames(strategy));
    if (unknown.length > 0) {
      throw StatusError.badRequest(`Unable to find {"${group}" "${version}" "${resource}"} that match label selector "${labels}", field selector "${fields}": field label not supported: ${unknown[0]}`);
    }
  }
  const limit = nonNegativeInteger(query, 'limit');
  return {
    labelSelector,
    fieldSelector,
    limit: limit === 0 ? undefined : limit,
    continue: single(query, 'continue'),
    resourceVersion: single(query, 'resourceVersion'),
  };
}

/** The field names a kind's field selectors accept (read off the strategy with an empty object). */
function supportedFieldNames(strategy: Strategy): Set<string> {
  const { group, version, kind } = strategy.resource;
  const skeleton = { apiVersion: group === '' ? version : `${group}/${version}`, kind, metadata: {} };
  return new Set(['metadata.name', 'metadata.namespace', ...Object.keys(strategy.selectableFields(skeleton))]);
}

export interface WatchParameters {
  readonly timeoutSeconds?: number;
  readonly allowWatchBookmarks: boolean;
}

export function parseWatchParameters(query: RawQuery): WatchParameters {
  return { timeoutSeconds: nonNegativeInteger(query, 'timeoutSeconds'), allowWatchBookmarks: flag(query, 'allowWatchBookmarks') };
}

const POLICIES: readonly PropagationPolicy[] = ['Background', 'Foreground', 'Orphan'];

/** DeleteOptions from the body (if any) and the query, the body's value winning like kube's. */
export function parseDeleteOptions(query: RawQuery, body: unknown): DeleteRequest {
  const b = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (b.kind !== undefined && b.kind !== 'DeleteOptions') throw StatusError.badRequest(`the body of a DELETE must be a DeleteOptions, not ${JSON.stringify(b.kind)}`);
  const policy = b.propagationPolicy ?? single(query, 'propagationPolicy');
  if (policy !== undefined && !POLICIES.includes(policy as PropagationPolicy)) {
    throw StatusError.badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
  }
  const orphanRaw = b.orphanDependents ?? single(query, 'orphanDependents');
  const orphanDependents = orphanRaw === undefined ? undefined : orphanRaw === true || orphanRaw === 'true';
  if (orphanDependents !== undefined && policy !== undefined) {
    throw StatusError.badRequest('Invalid value: "": both orphanDependents and propagationPolicy are set');
  }
  const graceRaw = b.gracePeriodSeconds ?? single(query, 'gracePeriodSeconds');
  const gracePeriodSeconds = graceRaw === undefined ? undefined : Number(graceRaw);
  if (gracePeriodSeconds !== undefined && !Number.isInteger(gracePeriodSeconds)) throw StatusError.badRequest(`gracePeriodSeconds: Invalid value: ${JSON.stringify(graceRaw)}: must be an integer`);
  const pre = typeof b.preconditions === 'object' && b.preconditions !== null ? (b.preconditions as Record<string, unknown>) : {};
  const preconditions = {
    ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
    ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
  };
  return {
    ...(policy === undefined ? {} : { propagationPolicy: policy as PropagationPolicy }),
    ...(orphanDependents === undefined ? {} : { orphanDependents }),
    ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
    preconditions,
  };
}
