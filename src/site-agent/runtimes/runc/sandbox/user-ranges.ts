import type { PodSpec } from '../../../../api/pod-spec-types.js';
import type { SiteType } from '../../../../site-api/site-model.js';
import type { IdRange } from '../oci/index.js';

/** Ids of one pod user namespace: 65536, as Docker's userns-remap and Kubernetes' hostUsers: false give each pod. */
export const USER_RANGE_SIZE = 65536;
/** The highest block: its last id stays below 2^32-1, which the kernel reserves (`(uid_t)-1`). */
const LAST_BLOCK = 0xffff - 1;

/** Host ids some host user, group or subordinate range already holds: `[start, end)`. */
export interface HostIdSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * Host ids in use from the host's account files: every uid of /etc/passwd and gid of
 * /etc/group, and each subordinate range of /etc/subuid and /etc/subgid (`name:start:count`,
 * the ranges rootless containers and Docker's userns-remap use). Pure: the files' texts in.
 */
export function hostIdsInUse(files: { readonly passwd: string; readonly group: string; readonly subuid: string; readonly subgid: string }): HostIdSpan[] {
  const spans: HostIdSpan[] = [];
  const ids = (text: string): void => {
    for (const line of text.split('\n')) {
      const id = Number(line.split(':')[2]);
      if (line.trim() !== '' && Number.isInteger(id) && id >= 0) spans.push({ start: id, end: id + 1 });
    }
  };
  const subordinate = (text: string): void => {
    for (const line of text.split('\n')) {
      const [, start, count] = line.split(':').map(Number);
      const valid = start !== undefined && count !== undefined && Number.isInteger(start) && Number.isInteger(count) && count > 0;
      if (valid) spans.push({ start, end: start + count });
    }
  };
  ids(files.passwd);
  ids(files.group);
  subordinate(files.subuid);
  subordinate(files.subgid);
  return spans;
}

/** The host ids of block `index` (block 0 is host ids 0…65535: never given out). */
export function blockRange(index: number): IdRange {
  return { hostId: index * USER_RANGE_SIZE, size: USER_RANGE_SIZE };
}

/**
 * The first block of {@link USER_RANGE_SIZE} host ids, from block 1, that no host account or
 * subordinate range overlaps and that `taken` (blocks claimed by virtual clusters of this
 * machine's sites) does not hold; undefined when every block is used. Pure.
 */
export function freeBlock(inUse: readonly HostIdSpan[], taken: ReadonlySet<number>): number | undefined {
  for (let index = 1; index <= LAST_BLOCK; index++) {
    if (taken.has(index)) continue;
    const { hostId, size } = blockRange(index);
    if (!inUse.some((span) => span.start < hostId + size && span.end > hostId)) return index;
  }
  return undefined;
}

/**
 * Whether a pod runs in a user namespace of its own (Kubernetes' `hostUsers: false`): always on
 * a regional edge, shared by tenants (a pod's `hostUsers: true` is ignored there, and told);
 * on a tenant's customer edge only when the pod asks for it, hostUsers defaulting to true as in
 * Kubernetes. Pure.
 */
export function runsInUserNamespace(spec: PodSpec, siteType: SiteType): boolean {
  if (siteType === 'REGIONAL_EDGE') return true;
  return spec['hostUsers'] === false;
}
