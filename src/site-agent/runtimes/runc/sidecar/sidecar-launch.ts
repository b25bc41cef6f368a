import { dirname, join } from 'node:path';
import type { Container, PodSpec, SecurityContext } from '../../../../api/pod-spec-types.js';
import { IDENTITY_MOUNT_PATH, SIDECAR_CONTAINER_NAME } from '../../../../api/sidecar-injection.js';
import type { BindMount } from '../oci/index.js';

/** The name of the container the platform injects into pods of sites that run real pods. */
export const SIDECAR_CONTAINER = SIDECAR_CONTAINER_NAME;
/** Where the sidecar finds its token and writes its state, inside its container (a tmpfs of its own). */
const SIDECAR_RUN_DIR = '/run/edgeplane-sidecar';

/**
 * V8 flags of the sidecar's node process, for its memory (a sidecar runs in every pod; `npm run
 * bench -- sidecar-start`, docs/RUNTIME.md). `--interrupt-budget` 8× V8's default (67584):
 * functions are optimized by TurboFan only after 8× more work, so the module loading of a
 * start (node's path and URL helpers, run ~500 times) no longer brings TurboFan's code and
 * memory in (−4 MB RSS); a function hot under load is still optimized, a moment later.
 * `--max-semi-space-size=1` (MB): the young generation stays at its initial size instead of
 * growing to 16 MB after the allocations of a start (−1.3 MB); scavenges come more often
 * under load, each over less memory.
 */
export const SIDECAR_NODE_FLAGS: readonly string[] = ['--interrupt-budget=540672', '--max-semi-space-size=1'];

/** The site-side facts the sidecar's process needs. */
export interface SidecarFacts {
  /** The control plane's URL (the sidecar checks its certificate against this name). */
  readonly server: string;
  /** The relay on the site gateway it dials instead (`host:port`). */
  readonly connectTo: string;
  /** The folders of the installation whose `edgeplane sidecar` runs (bound read-only at the same paths). */
  readonly installation: readonly string[];
  /** The sidecar's entry point (`…/cli/sidecar-entry.js`: `edgeplane sidecar` alone). */
  readonly main: string;
  /** The node binary. */
  readonly node: string;
  /** The pod's sidecar folder on the host (tmpfs): `token` in, `state.json` out. */
  readonly runDir: string;
}

/** Whom the sidecar gives the identity files to (`--identity-owner <uid>:<gid>`; see identity-owner.ts). */
export interface IdentityOwner {
  readonly uid: number;
  readonly gid: number;
}

export function isSidecar(container: Container): boolean {
  return container.name === SIDECAR_CONTAINER;
}

/** The sidecar's folder on the host (a tmpfs of its own while it runs) in its pod's folder. */
export function sidecarRunDir(podDir: string): string {
  return join(podDir, 'sidecar-run');
}

/** The sidecar's state file on the host. */
export function sidecarStateFile(runDir: string): string {
  return `${runDir}/state.json`;
}

export function sidecarTokenFile(runDir: string): string {
  return `${runDir}/token`;
}

/**
 * The injected container's process: `edgeplane sidecar` of this installation, reaching the
 * control plane through the site's relay, its bootstrap token and state in a folder only it
 * sees. Its identity folder is the pod's `/svc/secrets/identity` volume (a volume mount of
 * the injected spec); given an `owner`, it hands the files to that user and group. It runs as
 * root — its token and state stay root's and out of reach of the workload's users, who cannot
 * signal or trace it — with no capability but CAP_CHOWN, and that only to give the files
 * away; a read-only root, no new privileges. Pure.
 */
export function sidecarProcess(facts: SidecarFacts, owner?: IdentityOwner): { readonly args: string[]; readonly binds: BindMount[]; readonly securityContext: SecurityContext } {
  const binds: BindMount[] = [
    ...facts.installation.map((dir) => ({ source: dir, destination: dir, readOnly: true })),
    { source: facts.runDir, destination: SIDECAR_RUN_DIR, readOnly: false },
  ];
  const nodeDir = dirname(facts.node);
  if (!nodeDir.startsWith('/usr/') && !['/bin', '/sbin'].includes(nodeDir)) binds.push({ source: nodeDir, destination: nodeDir, readOnly: true });
  return {
    args: [
      facts.node,
      ...SIDECAR_NODE_FLAGS,
      facts.main,
      '--server', facts.server,
      '--connect-to', facts.connectTo,
      '--token-file', sidecarTokenFile(SIDECAR_RUN_DIR),
      '--state-file', sidecarStateFile(SIDECAR_RUN_DIR),
      '--identity-dir', IDENTITY_MOUNT_PATH,
      ...(owner === undefined ? [] : ['--identity-owner', `${owner.uid}:${owner.gid}`]),
      '--log-format', 'json',
    ],
    binds,
    securityContext: {
      runAsUser: 0,
      runAsGroup: 0,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'], add: owner === undefined ? [] : ['CHOWN'] },
    },
  };
}

/**
 * The pod's spec as the sidecar's launch reads it: without the pod's security context, whose
 * users, groups, fsGroup and runAsNonRoot are the workload's (the sidecar is the platform's
 * container, as a runtime's infra container is). Pure.
 */
export function sidecarPodSpec(spec: PodSpec): PodSpec {
  const { securityContext: _workloads, ...rest } = spec;
  return rest;
}

/** The sidecar's state as its state file says (`READY`, `DEGRADED`, `HALTED`, `INITIALIZING`), with the reason it gives. */
export function parseSidecarState(text: string | undefined): { readonly state: string; readonly reason?: string } | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { state?: unknown; reason?: unknown };
    if (typeof parsed.state !== 'string') return undefined;
    return { state: parsed.state, ...(typeof parsed.reason === 'string' ? { reason: parsed.reason } : {}) };
  } catch {
    return undefined;
  }
}
