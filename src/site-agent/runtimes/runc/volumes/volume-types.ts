import type { ObjectMeta } from '../../../../apimachinery/object.js';
import type { PodSpec, ResourceList } from '../../../../api/pod-spec-types.js';

/**
 * The shapes the volume code reads and produces. Planning (`volumeContents`, `containerBinds`)
 * reads a pod and the objects its volumes name; set-up writes {@link VolumeFile}s.
 */

/** The parts of a pod that volumes read (a `KubeObject` of kind Pod, its `spec` typed). */
export interface VolumePod {
  readonly metadata: ObjectMeta;
  readonly spec?: PodSpec;
}

/** A ConfigMap as the site API returns it: `data` is text, `binaryData` base64. */
export interface ConfigMapObject {
  readonly data?: Readonly<Record<string, string>> | null;
  readonly binaryData?: Readonly<Record<string, string>> | null;
}

/** A Secret as the site API returns it: `data` is base64. */
export interface SecretObject {
  readonly data?: Readonly<Record<string, string>> | null;
}

/**
 * What a volume's contents come from besides the pod. The runtime backs it with the site API;
 * an object that does not exist is `undefined` (any other failure rejects).
 */
export interface VolumeSources {
  configMap(namespace: string, name: string): Promise<ConfigMapObject | undefined>;
  secret(namespace: string, name: string): Promise<SecretObject | undefined>;
  /**
   * The node's allocatable resources (`cpu`, `memory`, `ephemeral-storage`): what a downward
   * API `limits.*` resolves to when the container sets no limit, as kubelet does.
   */
  readonly nodeAllocatable: ResourceList;
}

/** One file of a volume: a relative path inside it, its bytes and its permission bits. */
export interface VolumeFile {
  readonly path: string;
  readonly data: Buffer;
  readonly mode: number;
}
