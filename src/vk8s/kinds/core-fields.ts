import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { Quantity, QuantityError } from '../../apimachinery/quantity/quantity.js';
import { dns1123LabelProblems, dns1123SubdomainProblems } from '../../apimachinery/validation/names.js';
import type { IntOrString } from './core-types.js';

/**
 * Field rules shared by the core kinds (kube's `pkg/apis/core/validation` helpers and
 * apimachinery's `util/validation`), each returning causes with kube's messages.
 */

/** supportedPortProtocols, sorted as kube lists them in NotSupported errors. */
export const PORT_PROTOCOLS: readonly string[] = ['SCTP', 'TCP', 'UDP'];
/** The most data a Secret or ConfigMap may hold (kube's MaxSecretSize, 1 MiB). */
export const MAX_SECRET_SIZE = 1024 * 1024;

const NEGATIVE = 'must be greater than or equal to 0';

export function validateDns1123Label(value: string, path: string): StatusCause[] {
  return dns1123LabelProblems(value).map((p) => fieldError.invalid(path, value, p));
}

export function validateDns1123Subdomain(value: string, path: string): StatusCause[] {
  return dns1123SubdomainProblems(value).map((p) => fieldError.invalid(path, value, p));
}

/** validation.IsValidPortNum. */
export function portNumProblems(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** validation.IsValidPortName (an IANA_SVC_NAME). */
function portNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) problems.push('must contain at least one letter or number (a-z, 0-9)');
  if (name.includes('--')) problems.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems;
}

/** ValidatePortNumOrName: a number is a port, a string a port name. */
export function validatePortNumOrName(value: IntOrString | undefined, path: string): StatusCause[] {
  if (typeof value === 'string') return portNameProblems(value).map((p) => fieldError.invalid(path, value, p));
  const port = value ?? 0;
  return portNumProblems(port).map((p) => fieldError.invalid(path, port, p));
}

/** validation.IsConfigMapKey: the keys of Secret and ConfigMap data. */
export function configMapKeyProblems(key: string): string[] {
  const problems: string[] = [];
  if (key.length > 253) problems.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    problems.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === '.') problems.push("must not be '.'");
  else if (key === '..') problems.push("must not be '..'");
  else if (key.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

/** A quantity field's value, or undefined when it is not a quantity (decoding reports that). */
export function quantityOf(value: IntOrString | undefined): Quantity | undefined {
  if (value === undefined) return undefined;
  try {
    return Quantity.parse(String(value));
  } catch (error) {
    if (error instanceof QuantityError) return undefined;
    throw error;
  }
}

/** ValidateNonnegativeQuantity (what ValidateResourceQuantityValue checks for non-integer resources). */
export function validateNonNegativeQuantity(value: Quantity, path: string): StatusCause[] {
  return value.nanos < 0n ? [fieldError.invalid(path, value.toString(), NEGATIVE)] : [];
}

/** validateBasicResource: the whole-unit value may not be negative (kube prints that value, unquoted). */
export function validateBasicResource(value: Quantity, path: string): StatusCause[] {
  const units = value.value();
  return units < 0n ? [fieldError.invalid(path, Number(units), 'must be a valid resource quantity')] : [];
}

/** ValidatePositiveQuantityValue. */
export function validatePositiveQuantity(value: Quantity, path: string): StatusCause[] {
  return value.nanos <= 0n ? [fieldError.invalid(path, value.toString(), 'must be greater than zero')] : [];
}

/** Go's `strings.Join(errs, ";")`-style single cause for a list of problems (as validateTaint words it). */
export function joinedInvalid(path: string, value: unknown, problems: readonly string[]): StatusCause[] {
  return problems.length === 0 ? [] : [fieldError.invalid(path, value, problems.join(';'))];
}
