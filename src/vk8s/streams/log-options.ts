import { fieldError, StatusError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { queryBool, queryInt64 } from './query-values.js';
import type { LogOptions } from './types.js';

/** `PodLogOptions` before the container is resolved. */
export type LogQuery = Omit<LogOptions, 'container'> & { readonly container?: string };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Decodes and validates a `log` query as kube-apiserver 1.17 does: decoding failures are 400
 * (`strconv.ParseInt: parsing "x": invalid syntax`), then `ValidatePodLogOptions` gives 422
 * `PodLogOptions "<pod>" is invalid: …` (tailLines ≥ 0, limitBytes > 0, sinceSeconds > 0,
 * at most one of sinceTime and sinceSeconds). `pretty` and unknown parameters are ignored.
 */
export function parseLogQuery(query: URLSearchParams, pod: string): LogQuery {
  const container = query.get('container') ?? '';
  const sinceTime = query.get('sinceTime') ?? '';
  if (sinceTime !== '' && sinceTime !== 'null' && !RFC3339.test(sinceTime)) {
    throw StatusError.badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTime)} as "2006"`);
  }
  const options: LogQuery = {
    ...(container === '' ? {} : { container }),
    follow: queryBool(query, 'follow'),
    previous: queryBool(query, 'previous'),
    timestamps: queryBool(query, 'timestamps'),
    ...optional('tailLines', queryInt64(query, 'tailLines')),
    ...optional('sinceSeconds', queryInt64(query, 'sinceSeconds')),
    ...optional('limitBytes', queryInt64(query, 'limitBytes')),
    ...(sinceTime === '' || sinceTime === 'null' ? {} : { sinceTime }),
  };
  const causes = validateLogQuery(options);
  if (causes.length > 0) throw StatusError.invalid({ kind: 'PodLogOptions', group: '' }, pod, causes);
  return options;
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

function validateLogQuery(options: LogQuery): StatusCause[] {
  const causes: StatusCause[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0) {
    causes.push(fieldError.invalid('tailLines', options.tailLines, 'must be greater than or equal to 0'));
  }
  if (options.limitBytes !== undefined && options.limitBytes < 1) {
    causes.push(fieldError.invalid('limitBytes', options.limitBytes, 'must be greater than 0'));
  }
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined) {
    causes.push(fieldError.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) {
    causes.push(fieldError.invalid('sinceSeconds', options.sinceSeconds, 'must be greater than 0'));
  }
  return causes;
}
