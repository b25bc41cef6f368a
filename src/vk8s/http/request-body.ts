import { parse as parseYaml } from 'yaml';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../object.js';
import type { ResourceType } from '../resources.js';
import { groupVersion } from '../resources.js';

/** A body as JSON (no Content-Type means JSON, as kube-apiserver assumes) or YAML. */
export function parseBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  const text = raw === undefined ? '' : raw.toString('utf8');
  const type = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type === '' || type === '*/*') {
    try {
      return text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
    } catch (error) {
      throw StatusError.badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
    }
  }
  if (type === 'application/yaml') {
    try {
      return parseYaml(text) as unknown;
    } catch (error) {
      throw StatusError.badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
    }
  }
  throw StatusError.unsupportedMediaType(type);
}

/** The body as the resource's kind: an object with the right apiVersion and kind. */
export function asObject(value: unknown, resource: Pick<ResourceType, 'group' | 'version' | 'kind'>): KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw StatusError.badRequest(`Object 'Kind' is missing in '${JSON.stringify(value ?? null)}'`);
  const object = value as Record<string, unknown>;
  const expected = groupVersion(resource.group, resource.version);
  if (typeof object.kind !== 'string' || object.kind === '') throw StatusError.badRequest(`Object 'Kind' is missing in '${JSON.stringify(value)}'`);
  if (object.apiVersion !== undefined && object.apiVersion !== expected) {
    throw StatusError.badRequest(`the API version in the data (${JSON.stringify(object.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (object.kind !== resource.kind) throw StatusError.badRequest(`the kind in the data (${object.kind}) does not match the expected kind (${resource.kind})`);
  const metadata = typeof object.metadata === 'object' && object.metadata !== null && !Array.isArray(object.metadata) ? object.metadata : {};
  return { ...object, apiVersion: expected, kind: resource.kind, metadata };
}
