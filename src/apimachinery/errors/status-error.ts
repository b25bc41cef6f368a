/**
 * Kubernetes API errors as `metav1.Status`, with kube-apiserver 1.17's reasons, codes and
 * message formats (`k8s.io/apimachinery/pkg/api/errors`). The vK8s API answers every failure
 * with one of these; store errors are translated in exactly one place (`fromStoreError`).
 */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout';

/** The HTTP status (= `code`) of every reason. */
export const STATUS_CODE: Readonly<Record<StatusReason, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
};

/** A field problem of an Invalid error, as `details.causes[]` carries it. */
export interface StatusCause {
  readonly reason: CauseType;
  readonly message: string;
  readonly field: string;
}

type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError';

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** Which resource an error is about: plural resource name and API group ("" for core). */
export interface ResourceRef {
  readonly resource: string;
  readonly group: string;
}

const qualified = (r: ResourceRef): string => (r.group === '' ? r.resource : `${r.resource}.${r.group}`);
const detailsOf = (r: ResourceRef, name: string): StatusDetails => ({ name, ...(r.group === '' ? {} : { group: r.group }), kind: r.resource });

export class StatusError extends Error {
  override readonly name = 'StatusError';
  constructor(
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** The HTTP status when it is not the reason's own (507 for insufficient storage). */
    private readonly statusCode?: number,
  ) {
    super(message);
  }

  get code(): number {
    return this.statusCode ?? STATUS_CODE[this.reason];
  }

  /** The `metav1.Status` body. */
  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details === undefined ? {} : { details: this.details }),
      code: this.code,
    };
  }

  static notFound(r: ResourceRef, name: string): StatusError {
    return new StatusError('NotFound', `${qualified(r)} "${name}" not found`, detailsOf(r, name));
  }
  /** An unknown path: kube-apiserver's generic NotFound. */
  static noSuchPath(): StatusError {
    return new StatusError('NotFound', 'the server could not find the requested resource', {});
  }
  static alreadyExists(r: ResourceRef, name: string): StatusError {
    return new StatusError('AlreadyExists', `${qualified(r)} "${name}" already exists`, detailsOf(r, name));
  }
  static conflict(r: ResourceRef, name: string, why: string): StatusError {
    return new StatusError('Conflict', `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`, detailsOf(r, name));
  }
  /** The optimistic-concurrency conflict, word for word as kube-apiserver says it. */
  static modified(r: ResourceRef, name: string): StatusError {
    return StatusError.conflict(r, name, 'the object has been modified; please apply your changes to the latest version and try again');
  }
  /** `<Kind>[.<group>] "<name>" is invalid: <field>: <message>, …` with one cause per problem. */
  static invalid(kind: { kind: string; group: string }, name: string, causes: readonly StatusCause[]): StatusError {
    const target = kind.group === '' ? kind.kind : `${kind.kind}.${kind.group}`;
    const summary = causes.length === 1 ? `${causes[0]?.field}: ${causes[0]?.message}` : `[${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}]`;
    return new StatusError('Invalid', `${target} "${name}" is invalid: ${summary}`, {
      name,
      ...(kind.group === '' ? {} : { group: kind.group }),
      kind: kind.kind,
      causes,
    });
  }
  static badRequest(message: string): StatusError {
    return new StatusError('BadRequest', message);
  }
  static unauthorized(message = 'Unauthorized'): StatusError {
    return new StatusError('Unauthorized', message);
  }
  static forbidden(r: ResourceRef, name: string, why: string): StatusError {
    const subject = name === '' ? qualified(r) : `${qualified(r)} "${name}"`;
    return new StatusError('Forbidden', `${subject} is forbidden: ${why}`, detailsOf(r, name));
  }
  static methodNotAllowed(verb: string, r: ResourceRef): StatusError {
    return new StatusError('MethodNotAllowed', `${verb} is not supported on resources of kind "${qualified(r)}"`, { ...(r.group === '' ? {} : { group: r.group }), kind: r.resource });
  }
  static unsupportedMediaType(contentType: string): StatusError {
    return new StatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml; got "${contentType}"`);
  }
  static expired(message: string): StatusError {
    return new StatusError('Expired', message);
  }
  static tooOldResourceVersion(requested: number, oldest: number): StatusError {
    return new StatusError('Expired', `too old resource version: ${requested} (${oldest})`);
  }
  static requestEntityTooLarge(limit: number): StatusError {
    return new StatusError('RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
  }
  static tooManyRequests(retryAfterSeconds: number): StatusError {
    return new StatusError('TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds });
  }
  static internal(message: string): StatusError {
    return new StatusError('InternalError', `Internal error occurred: ${message}`, { causes: [{ reason: 'InternalError', message, field: '' }] });
  }
  static serviceUnavailable(message: string): StatusError {
    return new StatusError('ServiceUnavailable', message);
  }
  /**
   * A write the storage refused for lack of space: code 507 (RFC 4918's Insufficient Storage),
   * reason ServiceUnavailable — kube has no reason of its own for it, and this one makes
   * client-go's IsServiceUnavailable true, so controllers retry as for any outage of the
   * storage, while the code and the message name the cause (docs/ARCHITECTURE.md).
   */
  static insufficientStorage(message: string): StatusError {
    return new StatusError('ServiceUnavailable', message, undefined, 507);
  }
  static timeout(message: string): StatusError {
    return new StatusError('Timeout', `Timeout: ${message}`);
  }
}

/** Builds Invalid causes: `field.invalid(path, value, detail)` reads like Go's field.Invalid. */
export const fieldError = {
  invalid: (field: string, value: unknown, detail: string): StatusCause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${formatValue(value)}: ${detail}` }),
  required: (field: string, detail = ''): StatusCause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` }),
  notSupported: (field: string, value: unknown, supported: readonly string[]): StatusCause => ({
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${formatValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  duplicate: (field: string, value: unknown): StatusCause => ({ reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${formatValue(value)}` }),
  forbidden: (field: string, detail: string): StatusCause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` }),
  tooLong: (field: string, max: number): StatusCause => ({ reason: 'FieldValueTooLong', field, message: `Too long: must have at most ${max} bytes` }),
  notFound: (field: string, value: unknown): StatusCause => ({ reason: 'FieldValueNotFound', field, message: `Not found: ${formatValue(value)}` }),
};

/** Go's `%#v`-like rendering kube uses in field errors: strings quoted, numbers bare. */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
}
