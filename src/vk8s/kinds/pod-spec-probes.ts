import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { httpHeaderNameProblems, portNameProblems, portNumberProblems } from './pod-spec-syntax.js';
import type { Handler, IntOrString, Probe } from '../../api/pod-spec-types.js';

/** ValidateNonnegativeField: `must be greater than or equal to 0`. */
export function validateNonNegative(value: number | undefined, field: string): StatusCause[] {
  return value != null && value < 0 ? [fieldError.invalid(field, value, 'must be greater than or equal to 0')] : [];
}

/** ValidatePortNumOrName: a number 1–65535 or an IANA service name (absent is the number 0). */
function validatePortNumOrName(port: IntOrString | undefined, field: string): StatusCause[] {
  if (typeof port === 'string') return portNameProblems(port).map((p) => fieldError.invalid(field, port, p));
  const value = port ?? 0;
  return portNumberProblems(value).map((p) => fieldError.invalid(field, value, p));
}

/** validateHandler: exactly one of exec, httpGet, tcpSocket, each well formed. */
export function validateHandler(handler: Handler, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  const claim = (name: string): boolean => {
    if (count > 0) {
      causes.push(fieldError.forbidden(`${field}.${name}`, 'may not specify more than 1 handler type'));
      return false;
    }
    count++;
    return true;
  };
  if (handler.exec != null && claim('exec')) {
    if ((handler.exec.command ?? []).length === 0) causes.push(fieldError.required(`${field}.exec.command`));
  }
  const http = handler.httpGet;
  if (http != null && claim('httpGet')) {
    const at = `${field}.httpGet`;
    if ((http.path ?? '') === '') causes.push(fieldError.required(`${at}.path`));
    causes.push(...validatePortNumOrName(http.port, `${at}.port`));
    const scheme = http.scheme ?? '';
    if (scheme !== 'HTTP' && scheme !== 'HTTPS') causes.push(fieldError.notSupported(`${at}.scheme`, scheme, ['HTTP', 'HTTPS']));
    for (const header of http.httpHeaders ?? []) {
      const name = header.name ?? '';
      causes.push(...httpHeaderNameProblems(name).map((p) => fieldError.invalid(`${at}.httpHeaders`, name, p)));
    }
  }
  if (handler.tcpSocket != null && claim('tcpSocket')) causes.push(...validatePortNumOrName(handler.tcpSocket.port, `${field}.tcpSocket.port`));
  if (count === 0) causes.push(fieldError.required(field, 'must specify a handler type'));
  return causes;
}

/** validateProbe: a handler and non-negative timings (absent probe is fine). */
export function validateProbe(probe: Probe | undefined, field: string): StatusCause[] {
  if (probe == null) return [];
  return [
    ...validateHandler(probe, field),
    ...validateNonNegative(probe.initialDelaySeconds, `${field}.initialDelaySeconds`),
    ...validateNonNegative(probe.timeoutSeconds, `${field}.timeoutSeconds`),
    ...validateNonNegative(probe.periodSeconds, `${field}.periodSeconds`),
    ...validateNonNegative(probe.successThreshold, `${field}.successThreshold`),
    ...validateNonNegative(probe.failureThreshold, `${field}.failureThreshold`),
  ];
}
