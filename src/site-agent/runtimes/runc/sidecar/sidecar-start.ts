import { constants } from 'node:fs';
import { chown, readFile, rm, writeFile } from 'node:fs/promises';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import type { PodRef } from '../../../../site-api/site-api-types.js';
import { mountTmpfs, unmount } from '../../../host/index.js';
import type { ResolvedImage } from '../images/index.js';
import type { BindMount } from '../oci/index.js';
import { podIdentityOwner } from './identity-owner.js';
import { parseSidecarState, sidecarProcess, sidecarStateFile, sidecarTokenFile } from './sidecar-launch.js';

/** Where the sidecar's process comes from (the agent's own installation) and whom it asks for the pod's identity. */
export interface SidecarInstallation {
  /** The control plane's URL (the sidecar checks its certificate against this name). */
  readonly server: string;
  /** The folders of the installation whose `edgeplane sidecar` runs (bound read-only at the same paths). */
  readonly installation: readonly string[];
  /** The sidecar's entry point (`…/cli/sidecar-entry.js`). */
  readonly main: string;
  /** The node binary. */
  readonly node: string;
}

export interface SidecarLauncherOptions {
  readonly installation: SidecarInstallation;
  /** `gateway:port` of the site's relay to the control plane. */
  readonly relay: string;
  /** A bootstrap token for the pod's sidecar, minted by the control plane for this pod's uid. */
  readonly identityToken: (pod: PodRef) => Promise<string>;
  /** The images of the pod's containers (their `User`, for the identity files' owner). */
  readonly resolveImage: (reference: string) => Promise<ResolvedImage | undefined>;
}

/** A start of the sidecar, prepared: the container to launch in the injected one's place and its extra binds. */
interface PreparedSidecar {
  readonly launched: Container;
  readonly binds: readonly BindMount[];
  /** Why some workload container will not read its key (an `IdentityNotShared` Warning). */
  readonly notShared?: string;
}

/** The sidecar's readiness from its state file, and a Warning to record (once) when it halted. */
export interface SidecarReadiness {
  readonly ready: boolean;
  readonly halted?: string;
}

/**
 * The injected sidecar of a runc site's pods: each start gets a private tmpfs (`runDir`)
 * holding a fresh bootstrap token minted for the pod and no stale state, the owner of the
 * identity files decided from the pod (identity-owner.ts), and `edgeplane sidecar` launched
 * in the injected container's place (root with CAP_CHOWN at most); its state file says when
 * it is ready.
 */
export class SidecarLauncher {
  constructor(private readonly options: SidecarLauncherOptions) {}

  /**
   * Prepares a start: the container to launch in the injected one's place, its extra binds,
   * and why some workload container will not read its key (an `IdentityNotShared` Warning).
   * `podRoot`: a user-namespaced pod's root as a host id.
   */
  async prepare(pod: KubeObject, ref: PodRef, runDir: string, container: Container, podRoot?: number): Promise<PreparedSidecar> {
    await mountTmpfs(runDir, { sizeBytes: 1 << 20 });
    const token = await this.options.identityToken(ref);
    // The sidecar's container writes this folder: never write through a link it may have left there (rm unlinks it; `wx` only makes a new file).
    await rm(sidecarTokenFile(runDir), { force: true });
    await writeFile(sidecarTokenFile(runDir), token, { mode: 0o600, flag: 'wx' });
    if (podRoot !== undefined) {
      // In a user namespace the sidecar is the pod's root (this host id): its folder and token are its own, as they are host root's otherwise.
      await chown(runDir, podRoot, podRoot);
      await chown(sidecarTokenFile(runDir), podRoot, podRoot);
    }
    await rm(sidecarStateFile(runDir), { force: true });
    const owner = await podIdentityOwner((pod['spec'] ?? {}) as PodSpec, (image) => this.options.resolveImage(image));
    const process = sidecarProcess({ ...this.options.installation, connectTo: this.options.relay, runDir }, owner.by === 'root' ? undefined : owner.owner);
    return {
      launched: { ...container, command: process.args, args: [], securityContext: process.securityContext },
      binds: process.binds,
      ...(owner.by === 'root' && owner.reason !== undefined ? { notShared: owner.reason } : {}),
    };
  }

  /** Ready while its container runs and its state is READY or DEGRADED; `halted` names why it gave up. */
  async readiness(runDir: string, running: boolean): Promise<SidecarReadiness> {
    const state = parseSidecarState(await readFile(sidecarStateFile(runDir), { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW }).catch(() => undefined));
    if (state?.state === 'HALTED') return { ready: false, halted: `The workload sidecar halted${state.reason === undefined ? '' : ` (${state.reason})`}: the pod has no identity and is not ready` };
    return { ready: running && (state?.state === 'READY' || state?.state === 'DEGRADED') };
  }

  /** Unmounts the sidecar's tmpfs (its token and state) once the pod's containers are gone. */
  release(runDir: string): Promise<void> {
    return unmount(runDir);
  }
}
