import { fieldError, type StatusCause } from '../apimachinery/errors/status-error.js';
import { Quantity, QuantityError } from '../apimachinery/quantity/quantity.js';
import { qualifiedNameProblems } from '../apimachinery/validation/names.js';
import type { QuantityValue, ResourceList, ResourceRequirements } from './pod-spec-types.js';

/**
 * Container resources (core/v1 ResourceRequirements): defaulting rounds every quantity up to
 * milli precision and prints it canonically (what kube-apiserver stores and returns); the
 * rules check names, values and requests ≤ limits as ValidateResourceRequirements does.
 */

const STANDARD_CONTAINER = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const INTEGER = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.') && qualifiedNameProblems(`requests.${name}`).length === 0;
/** Native resources other than hugepages may have requests below limits. */
const isOvercommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

/** Parses a quantity field value; undefined when it is not a quantity. */
export function parseQuantity(value: QuantityValue | undefined): Quantity | undefined {
  if (value == null) return undefined;
  try {
    return Quantity.parse(String(value));
  } catch (error) {
    if (error instanceof QuantityError) return undefined;
    throw error;
  }
}

/** The canonical text of a quantity rounded up to milli precision; the input when unparseable. */
export function canonicalQuantity(value: QuantityValue): QuantityValue {
  const quantity = parseQuantity(value);
  if (quantity == null) return value;
  const rounded = quantity.nanos % 1_000_000n === 0n ? quantity : Quantity.fromMilli(quantity.milliValue(), quantity.format);
  return rounded.toString();
}

/** SetDefaults_ResourceList on a list, in place. */
export function defaultResourceList(list: ResourceList | null | undefined): void {
  if (list == null) return;
  for (const [name, value] of Object.entries(list)) list[name] = canonicalQuantity(value);
}

function validateResourceName(name: string, field: string): StatusCause[] {
  const causes = qualifiedNameProblems(name).map((p) => fieldError.invalid(field, name, p));
  if (causes.length > 0) return causes;
  if (!name.includes('/') && !STANDARD.has(name) && !isHugePages(name) && !name.startsWith('requests.hugepages-')) {
    return [fieldError.invalid(field, name, 'must be a standard resource type or fully qualified')];
  }
  return [];
}

function validateContainerResourceName(name: string, field: string): StatusCause[] {
  const causes = validateResourceName(name, field);
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER.has(name) && !isHugePages(name)) causes.push(fieldError.invalid(field, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtended(name)) {
    causes.push(fieldError.invalid(field, name, "doesn't follow extended resource name standard"));
  }
  return causes;
}

/** ValidateResourceQuantityValue: parseable, not negative, whole for integer resources. */
function validateQuantity(name: string, value: QuantityValue, field: string): { causes: StatusCause[]; quantity?: Quantity } {
  const quantity = parseQuantity(value);
  if (quantity == null) {
    return { causes: [fieldError.invalid(field, String(value), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")] };
  }
  const causes: StatusCause[] = [];
  if (quantity.nanos < 0n) causes.push(fieldError.invalid(field, quantity.toString(), 'must be greater than or equal to 0'));
  if ((INTEGER.has(name) || isExtended(name)) && quantity.milliValue() % 1000n !== 0n) causes.push(fieldError.invalid(field, quantity.toString(), 'must be an integer'));
  return { causes, quantity };
}

/** ValidateResourceRequirements for one container; `field` ends in `.resources`. */
export function validateResourceRequirements(resources: ResourceRequirements | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const limitsField = `${field}.limits`;
  const requestsField = `${field}.requests`;
  const limits = new Map<string, Quantity>();
  let limitsCpuOrMemory = false;
  let requestsCpuOrMemory = false;
  let hugePages = false;
  for (const [name, value] of Object.entries(resources?.limits ?? {})) {
    const at = `${limitsField}[${name}]`;
    causes.push(...validateContainerResourceName(name, at));
    const checked = validateQuantity(name, value, at);
    causes.push(...checked.causes);
    if (checked.quantity != null) limits.set(name, checked.quantity);
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') limitsCpuOrMemory = true;
  }
  for (const [name, value] of Object.entries(resources?.requests ?? {})) {
    const at = `${requestsField}[${name}]`;
    causes.push(...validateContainerResourceName(name, at));
    const checked = validateQuantity(name, value, at);
    causes.push(...checked.causes);
    const limit = limits.get(name);
    const request = checked.quantity;
    if (limit != null && request != null) {
      if (request.compare(limit) !== 0 && !isOvercommitAllowed(name)) {
        causes.push(fieldError.invalid(requestsField, request.toString(), `must be equal to ${name} limit`));
      } else if (request.compare(limit) > 0) {
        causes.push(fieldError.invalid(requestsField, request.toString(), `must be less than or equal to ${name} limit`));
      }
    } else if (limit == null && !Object.hasOwn(resources?.limits ?? {}, name) && !isOvercommitAllowed(name)) {
      causes.push(fieldError.required(limitsField, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') requestsCpuOrMemory = true;
  }
  if (!limitsCpuOrMemory && !requestsCpuOrMemory && hugePages) causes.push(fieldError.forbidden(field, 'HugePages require cpu or memory'));
  return causes;
}
