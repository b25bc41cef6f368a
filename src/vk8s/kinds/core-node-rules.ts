import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { labelValueProblems } from '../../apimachinery/validation/names.js';
import { validateLabels } from '../../apimachinery/validation/object-meta.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { joinedInvalid, quantityOf } from './core-fields.js';
import { isCidr, parseIp } from './core-ip.js';
import { ensure, view, type IntOrString, type NodeSpec, type NodeStatus, type Taint } from './core-types.js';

/** Node defaulting and validation as kube-apiserver 1.17 (`SetDefaults_NodeStatus`, `ValidateNode`, `ValidateNodeUpdate`). */

const TAINT_EFFECTS: readonly string[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Allocatable defaults to capacity. */
export function defaultNode(object: KubeObject): void {
  if (object.status === undefined) return;
  const status = ensure<NodeStatus>(object, 'status');
  if (status.allocatable === undefined && status.capacity !== undefined) status.allocatable = { ...status.capacity };
}

/** ValidateNode without the ObjectMeta part. */
export function validateNode(object: KubeObject): StatusCause[] {
  const spec = view<NodeSpec>(object, 'spec');
  const causes: StatusCause[] = [];
  // kube 1.17 puts node taints under `metadata.` in these paths.
  if ((spec.taints ?? []).length > 0) causes.push(...validateTaints(spec.taints ?? [], 'metadata.taints'));
  causes.push(...validateResources(object));
  const cidrs = spec.podCIDRs ?? [];
  cidrs.forEach((cidr, i) => {
    if (!isCidr(cidr)) causes.push(fieldError.invalid(`spec.podCIDRs[${i}]`, cidrs, 'must be valid CIDR'));
  });
  if (cidrs.length > 1) {
    const families = new Set(cidrs.map((c) => parseIp(c.split('/')[0] ?? '')?.length));
    if (cidrs.length > 2 || families.size !== 2) causes.push(fieldError.invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  }
  return causes;
}

/** ValidateNodeUpdate without the ObjectMeta part (also the status subresource's rule). */
export function validateNodeUpdate(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = view<NodeSpec>(object, 'spec');
  const previous = view<NodeSpec>(old, 'spec');
  const causes = validateResources(object);
  const seen = new Set<string>();
  (view<NodeStatus>(object, 'status').addresses ?? []).forEach((address, i) => {
    const key = `${address.type ?? ''}/${address.address ?? ''}`;
    if (seen.has(key)) causes.push(fieldError.duplicate(`status.addresses[${i}]`, address));
    seen.add(key);
  });
  const oldCidrs = previous.podCIDRs ?? [];
  const newCidrs = spec.podCIDRs ?? [];
  if (oldCidrs.length > 0) {
    const changed = oldCidrs.length !== newCidrs.length ? [0] : oldCidrs.flatMap((c, i) => (c === newCidrs[i] ? [] : [i]));
    for (const _ of changed) causes.push(fieldError.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  }
  const providerID = previous.providerID ?? '';
  if (providerID !== '' && providerID !== (spec.providerID ?? '')) {
    causes.push(fieldError.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if ((spec.taints ?? []).length > 0) causes.push(...validateTaints(spec.taints ?? [], 'metadata.taints'));
  return causes;
}

function validateTaints(taints: readonly Taint[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const unique = new Set<string>();
  taints.forEach((taint, i) => {
    const at = `${path}[${i}]`;
    causes.push(...validateLabels({ [taint.key ?? '']: '' }, `${at}.key`));
    causes.push(...joinedInvalid(`${at}.value`, taint.value ?? '', labelValueProblems(taint.value ?? '')));
    const effect = taint.effect ?? '';
    if (effect === '') causes.push(fieldError.required(`${at}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) causes.push(fieldError.notSupported(`${at}.effect`, effect, TAINT_EFFECTS));
    const key = `${effect}\u0000${taint.key ?? ''}`;
    if (unique.has(key)) {
      const duplicate = fieldError.duplicate(at, taint);
      causes.push({ ...duplicate, message: `${duplicate.message}: taints must be unique by key and effect pair` });
    }
    unique.add(key);
  });
  return causes;
}

/** ValidateNodeResources: capacity and allocatable quantities are non-negative (whole for pods). */
function validateResources(object: KubeObject): StatusCause[] {
  const status = view<NodeStatus>(object, 'status');
  const check = (list: Record<string, IntOrString> | undefined, field: string): StatusCause[] =>
    Object.entries(list ?? {}).flatMap(([name, value]) => {
      const path = `status.${field}.${name}`;
      const quantity = quantityOf(value);
      if (quantity === undefined) return [fieldError.invalid(path, value, 'must be a valid resource quantity')];
      const causes: StatusCause[] = [];
      if (quantity.nanos < 0n) causes.push(fieldError.invalid(path, quantity.toString(), 'must be greater than or equal to 0'));
      if (isIntegerResource(name) && quantity.nanos % 1_000_000_000n !== 0n) causes.push(fieldError.invalid(path, quantity.toString(), 'must be an integer'));
      return causes;
    });
  return [...check(status.capacity, 'capacity'), ...check(status.allocatable, 'allocatable')];
}

/** helper.IsIntegerResourceName for what nodes report: pods and extended resources. */
function isIntegerResource(name: string): boolean {
  if (name === 'pods') return true;
  return name.includes('/') && !name.startsWith('kubernetes.io/') && !name.includes('.kubernetes.io/') && !name.startsWith('requests.');
}
