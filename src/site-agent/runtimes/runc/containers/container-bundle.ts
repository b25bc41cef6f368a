import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { QosClass } from '../../../../api/pod-spec-qos.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { mountContainerRoot } from '../images/container-root.js';
import { containerOciSpec, type BindMount } from './container-spec.js';
import { prepareRoot } from '../images/host-image.js';
import type { ResolvedImage } from '../images/image-store.js';
import type { PodParts } from '../pod-parts.js';
import { makeContainerFolders, type PodSandbox } from '../sandbox/pod-sandbox.js';
import { isSidecar, sidecarPodSpec } from '../sidecar/sidecar-launch.js';
import type { ContainerFiles } from './runc-containers.js';
import { workloadLaunch } from './workload-launch.js';

/** One container instance to write a bundle for. */
export interface BundleRequest {
  readonly pod: KubeObject;
  /** The container as the pod names it (its security context and name). */
  readonly container: Container;
  /** What to run: the container itself, or the sidecar's command line in its place. */
  readonly launched: Container;
  /** The image from the site's store; undefined: the host's programs. */
  readonly image: ResolvedImage | undefined;
  readonly instanceDir: string;
  readonly files: ContainerFiles;
  readonly binds: readonly BindMount[];
  readonly env: ReadonlyMap<string, string>;
  readonly sandbox: PodSandbox;
  /** `<name>-<restart>`: the container's cgroup under the pod's. */
  readonly cgroupName: string;
  readonly uid: string;
  readonly podName: string;
  readonly qosClass: QosClass;
}

/**
 * Makes a container instance's root (an overlay over the image, or a host-image root with its
 * symlinks and read-only binds) and writes its OCI bundle (`config.json`, 0600) from the pod's
 * spec, so runc can create it. Returns the root.
 */
export async function writeContainerBundle(parts: PodParts, request: BundleRequest): Promise<string> {
  const { site, services } = parts;
  const { container, image, binds } = request;
  const readOnlyRoot = container.securityContext?.['readOnlyRootFilesystem'] === true;
  const plan = image === undefined ? site.hostPlan : { symlinks: [], binds: [] };
  let rootfs: string;
  if (image === undefined) {
    rootfs = join(request.instanceDir, 'rootfs');
    await mkdir(rootfs, { recursive: true });
    prepareRoot(rootfs, plan, binds);
  } else {
    rootfs = await mountContainerRoot(image.rootfs, request.instanceDir, readOnlyRoot, binds);
  }
  const podSpec = (request.pod['spec'] ?? {}) as PodSpec;
  const spec = isSidecar(container) ? sidecarPodSpec(podSpec) : podSpec;
  const launch = workloadLaunch(spec, request.launched, {
    rootfs,
    image: image?.config ?? {},
    env: request.env,
    binds: [...plan.binds, ...binds],
    netnsPath: request.sandbox.netnsPath,
    infraPid: request.sandbox.infraPid,
    cgroupsPath: `${request.sandbox.cgroup}/${request.cgroupName}`,
    hostname: request.podName.slice(0, 63),
    qosClass: request.qosClass,
    machineMemoryBytes: services.machineMemoryBytes,
    oomScoreFloor: services.oomScoreFloor,
    allowPrivileged: site.type !== 'REGIONAL_EDGE',
    annotations: { 'io.kubernetes.pod.uid': request.uid, 'io.kubernetes.container.name': container.name ?? '' },
  });
  await makeContainerFolders(request.files);
  await writeFile(join(request.files.bundle, 'config.json'), JSON.stringify(containerOciSpec(launch)), { mode: 0o600 });
  return rootfs;
}
