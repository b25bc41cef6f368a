import { ConfigError } from './errors.js';
import type { ObjectRefWithKind, VersionedObject } from './envelope.js';

/** `response_format` of a get: names and their integers. */
export const RESPONSE_FORMATS = [
  'GET_RSP_FORMAT_DEFAULT',
  'GET_RSP_FORMAT_FOR_CREATE',
  'GET_RSP_FORMAT_FOR_REPLACE',
  'GET_RSP_FORMAT_STATUS',
  'GET_RSP_FORMAT_READ',
  'GET_RSP_FORMAT_REFERRING_OBJECTS',
  'GET_RSP_FORMAT_BROKEN_REFERENCES',
] as const;

export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

/** Accepts a format's name or its integer; undefined means the default. */
export function parseResponseFormat(value: string | undefined): ResponseFormat {
  if (value === undefined || value === '') return 'GET_RSP_FORMAT_DEFAULT';
  const byNumber = /^\d+$/.test(value) ? RESPONSE_FORMATS[Number(value)] : undefined;
  const format = byNumber ?? RESPONSE_FORMATS.find((f) => f === value);
  if (format === undefined) {
    throw ConfigError.invalid(`response_format: "${value}" is not one of ${RESPONSE_FORMATS.map((f, i) => `${f} (${i})`).join(', ')}`);
  }
  return format;
}

export interface References {
  readonly referring: readonly ObjectRefWithKind[];
  readonly deleted: readonly ObjectRefWithKind[];
  readonly disabled: readonly ObjectRefWithKind[];
}

/** Which computed members a format needs, so the caller computes only those. */
export function formatNeeds(format: ResponseFormat): { referring: boolean; broken: boolean } {
  return {
    referring: format === 'GET_RSP_FORMAT_DEFAULT' || format === 'GET_RSP_FORMAT_REFERRING_OBJECTS',
    broken: format === 'GET_RSP_FORMAT_BROKEN_REFERENCES',
  };
}

/**
 * Pure: the get response for a format. Every member is always present; members the format
 * does not select are `null` (arrays: `[]`); `resource_version` is always set.
 */
export function buildGetResponse(object: VersionedObject, format: ResponseFormat, refs: References): Record<string, unknown> {
  const body = { metadata: object.metadata, system_metadata: object.system_metadata, spec: object.spec };
  const response: Record<string, unknown> = {
    object: null,
    create_form: null,
    replace_form: null,
    resource_version: object.resource_version,
    metadata: null,
    system_metadata: null,
    spec: null,
    status: [],
    referring_objects: [],
    deleted_referred_objects: [],
    disabled_referred_objects: [],
  };
  switch (format) {
    case 'GET_RSP_FORMAT_DEFAULT':
      Object.assign(response, body, { object: body, status: object.status, referring_objects: refs.referring });
      break;
    case 'GET_RSP_FORMAT_FOR_CREATE':
      response['create_form'] = { metadata: { ...object.metadata, name: '' }, spec: object.spec };
      break;
    case 'GET_RSP_FORMAT_FOR_REPLACE':
      response['replace_form'] = { metadata: object.metadata, spec: object.spec };
      break;
    case 'GET_RSP_FORMAT_STATUS':
      response['status'] = object.status;
      break;
    case 'GET_RSP_FORMAT_READ':
      Object.assign(response, body);
      break;
    case 'GET_RSP_FORMAT_REFERRING_OBJECTS':
      response['referring_objects'] = refs.referring;
      break;
    case 'GET_RSP_FORMAT_BROKEN_REFERENCES':
      response['deleted_referred_objects'] = refs.deleted;
      response['disabled_referred_objects'] = refs.disabled;
      break;
  }
  return response;
}
