import { readFile, rm, writeFile } from 'node:fs/promises';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import type { PodRef } from '../../../../site-api/site-api-types.js';
import type { BindMount } from '../containers/container-spec.js';
import { podIdentityOwner } from './identity-owner.js';
import type { PodEvents } from '../pod-worker/pod-events.js';
import type { PodParts } from '../pod-parts.js';
import type { ContainerRecord } from '../../kubelet/index.js';
import { parseSidecarState, sidecarProcess, sidecarStateFile, sidecarTokenFile } from './sidecar-launch.js';
import { mountTmpfs } from '../../../host/tmpfs-mounts.js';

/**
 * Prepares a start of the injected sidecar: its private tmpfs (`runDir`) holding a fresh
 * bootstrap token minted for the pod and no stale state; the owner of the identity files,
 * decided from the pod (identity-owner.ts; an `IdentityNotShared` Warning when some workload
 * container will not be able to read its key); and the container to launch in the injected
 * one's place (`edgeplane sidecar`, root with CAP_CHOWN at most) with its extra binds.
 */
export async function prepareSidecarStart(parts: PodParts, pod: KubeObject, ref: PodRef, runDir: string, events: PodEvents, container: Container): Promise<{ readonly launched: Container; readonly binds: readonly BindMount[] }> {
  const { site, services } = parts;
  await mountTmpfs(runDir, { sizeBytes: 1 << 20 });
  await writeFile(sidecarTokenFile(runDir), await services.identityToken(ref), { mode: 0o600 });
  await rm(sidecarStateFile(runDir), { force: true });
  const owner = await podIdentityOwner((pod['spec'] ?? {}) as PodSpec, (image) => site.images.resolve(image));
  if (owner.by === 'root' && owner.reason !== undefined) events.once('\0identity', 'Warning', 'IdentityNotShared', owner.reason);
  const process = sidecarProcess({ ...services.sidecar, connectTo: site.relay, runDir }, owner.by === 'root' ? undefined : owner.owner);
  return { launched: { ...container, command: process.args, args: [], securityContext: process.securityContext }, binds: process.binds };
}

/**
 * The sidecar's readiness from the state file it writes in `runDir`: ready while its container
 * runs and the state is READY or DEGRADED; HALTED is a `SidecarHalted` Warning (once).
 */
export async function readSidecarState(runDir: string, record: ContainerRecord, events: PodEvents): Promise<void> {
  const state = parseSidecarState(await readFile(sidecarStateFile(runDir), 'utf8').catch(() => undefined));
  const ready = record.current.kind === 'running' && (state?.state === 'READY' || state?.state === 'DEGRADED');
  if (state?.state === 'HALTED') {
    events.once('\0sidecar', 'Warning', 'SidecarHalted', `The workload sidecar halted${state.reason === undefined ? '' : ` (${state.reason})`}: the pod has no identity and is not ready`);
  } else if (ready) events.forget('\0sidecar');
  record.ready = ready;
}
