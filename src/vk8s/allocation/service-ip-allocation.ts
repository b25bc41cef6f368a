import { fieldError, StatusError } from '../../apimachinery/errors/status-error.js';
import type { AllocationContext, AllocationHooks } from '../../registry/strategy.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { isStoreError } from '../../store/errors.js';
import type { KeyValue } from '../../store/types.js';
import { hasClusterIp, serviceSpec } from '../kinds/core-service-rules.js';
import { ensure, type ServiceSpec } from '../kinds/core-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { Ipv4Range } from './ipv4-range.js';

/**
 * Service ClusterIP allocation, after kube-apiserver 1.17's service REST storage and its
 * `ipallocator`, with one pool per virtual cluster. A reservation is a store key
 * `/vk8s-alloc/serviceips/<tenant>/<namespace>/<vk8s>/<ip>` whose value names the owning
 * Service (`{"namespace","name","uid"}`); creating the key is the atomic claim, so concurrent
 * allocations never hand out one address twice.
 *
 * - `clusterIP: ""` gets a free address at random (a random start, then the next free one).
 * - An explicit address must be in the range and free, else 422 on `spec.clusterIP`.
 * - `None` (headless) and ExternalName services get nothing.
 * - Dry-run checks and picks an address without reserving it.
 * - An update from ExternalName to another type allocates; the reverse releases.
 */

/** The range every virtual cluster allocates service addresses from (each cluster its own pool): 65,534 addresses. */
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/16';

export interface ServiceIpAllocationOptions {
  /** The IPv4 range to allocate from; {@link DEFAULT_SERVICE_CIDR} when absent. */
  readonly cidr?: string;
  /** Uniform in [0, 1): where the search for a free address starts. */
  readonly random?: () => number;
}

/** The store prefix of one virtual cluster's reservations. */
export function serviceIpKeyPrefix(cluster: ClusterRef): string {
  return `/vk8s-alloc/serviceips/${cluster.tenant}/${cluster.namespace}/${cluster.name}/`;
}

/** The Service an address is reserved for (the reservation's value). */
interface ServiceIpOwner {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

type Undo = () => Promise<void>;
const nothing: Undo = () => Promise.resolve();

export function serviceIpAllocation(options: ServiceIpAllocationOptions = {}): AllocationHooks {
  const range = Ipv4Range.parse(options.cidr ?? DEFAULT_SERVICE_CIDR);
  const random = options.random ?? Math.random;

  /** Reserves what `object`'s spec asks for and writes an allocated address into it. */
  async function allocate(object: KubeObject, context: AllocationContext): Promise<Undo> {
    const spec = serviceSpec(object);
    if (spec.type === 'ExternalName' || spec.clusterIP === 'None') return nothing;
    const owner = ownerOf(object);
    if (hasClusterIp(spec)) return allocateExplicit(spec.clusterIP ?? '', owner, context);
    const { ip, undo } = await allocateNext(owner, context);
    ensure<ServiceSpec>(object, 'spec').clusterIP = ip;
    return undo;
  }

  async function allocateNext(owner: ServiceIpOwner, context: AllocationContext): Promise<{ ip: string; undo: Undo }> {
    const prefix = serviceIpKeyPrefix(context.cluster);
    const { items } = await context.store.list(prefix);
    const taken = new Set(items.map((kv) => kv.key.slice(prefix.length)));
    const size = range.size;
    const start = Math.min(size - 1, Math.floor(random() * size));
    for (let i = 0; i < size && taken.size < size; i++) {
      const ip = range.addressAt((start + i) % size);
      if (taken.has(ip)) continue;
      if (context.dryRun) return { ip, undo: nothing };
      const reserved = await tryReserve(ip, owner, context);
      if (reserved !== undefined) return { ip, undo: () => release(reserved) };
      taken.add(ip);
    }
    throw StatusError.internal('failed to allocate a serviceIP: range is full');
  }

  async function allocateExplicit(requested: string, owner: ServiceIpOwner, context: AllocationContext): Promise<Undo> {
    const offset = range.offsetOf(requested);
    const refuse = (why: string): never => {
      throw StatusError.invalid({ kind: 'Service', group: '' }, owner.name, [fieldError.invalid('spec.clusterIP', requested, why)]);
    };
    if (offset === undefined) return refuse(`provided IP is not in the valid range. The range of valid IPs is ${range.toString()}`);
    const ip = range.addressAt(offset);
    if (context.dryRun) {
      if ((await context.store.get(keyOf(context, ip))) !== undefined) refuse('provided IP is already allocated');
      return nothing;
    }
    const reserved = await tryReserve(ip, owner, context);
    if (reserved === undefined) return refuse('provided IP is already allocated');
    return () => release(reserved);
  }

  /** Creates the reservation; undefined when the address is taken. */
  async function tryReserve(ip: string, owner: ServiceIpOwner, context: AllocationContext): Promise<Reservation | undefined> {
    const key = keyOf(context, ip);
    try {
      const kv = await context.store.create(key, JSON.stringify(owner));
      return { kv, context };
    } catch (error) {
      if (isStoreError(error, 'KeyExists')) return undefined;
      throw error;
    }
  }

  /** Releases the address `service` holds, if the reservation is still its own. */
  async function releaseHeld(service: KubeObject, context: AllocationContext): Promise<Undo> {
    const spec = serviceSpec(service);
    if (context.dryRun || spec.type === 'ExternalName' || !hasClusterIp(spec)) return nothing;
    const offset = range.offsetOf(spec.clusterIP ?? '');
    if (offset === undefined) return nothing;
    const ip = range.addressAt(offset);
    const kv = await context.store.get(keyOf(context, ip));
    if (kv === undefined || !ownedBy(kv, service.metadata.uid)) return nothing;
    await release({ kv, context });
    return async () => {
      await tryReserve(ip, ownerOf(service), context);
    };
  }

  function keyOf(context: AllocationContext, ip: string): string {
    return `${serviceIpKeyPrefix(context.cluster)}${ip}`;
  }

  return {
    beforeCreate: (object, context) => allocate(object, context),
    beforeUpdate: async (object, old, context) => {
      const wasExternal = serviceSpec(old).type === 'ExternalName';
      const isExternal = serviceSpec(object).type === 'ExternalName';
      if (wasExternal && !isExternal) return allocate(object, context);
      if (!wasExternal && isExternal) return releaseHeld(old, context);
      return nothing;
    },
    afterDelete: async (old, context) => {
      await releaseHeld(old, context);
    },
  };
}

interface Reservation {
  readonly kv: KeyValue;
  readonly context: AllocationContext;
}

/** Deletes a reservation at the revision it was read or written at (a newer owner's is kept). */
async function release({ kv, context }: Reservation): Promise<void> {
  try {
    await context.store.delete(kv.key, kv.modRevision);
  } catch (error) {
    if (isStoreError(error, 'KeyNotFound') || isStoreError(error, 'Conflict')) return;
    throw error;
  }
}

function ownerOf(service: KubeObject): ServiceIpOwner {
  return { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '', uid: service.metadata.uid ?? '' };
}

/** Whether a reservation belongs to the Service with `uid` (a reservation without a uid counts as anyone's). */
function ownedBy(kv: KeyValue, uid: string | undefined): boolean {
  try {
    const owner = JSON.parse(kv.value) as Partial<ServiceIpOwner>;
    return owner.uid === undefined || owner.uid === '' || uid === undefined || owner.uid === uid;
  } catch {
    return true;
  }
}
