import { ImageStoreError } from './image-store-error.js';

/**
 * The parts of the OCI image-layout and image specs the site's image store reads: the
 * layout's index.json, image indexes, manifests and image configs, checked and picked by pure
 * functions. Everything here is untrusted input until its digest has been verified.
 */

export const MEDIA_TYPE_INDEX = 'application/vnd.oci.image.index.v1+json';
export const MEDIA_TYPE_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const MEDIA_TYPE_CONFIG = 'application/vnd.oci.image.config.v1+json';
const LAYER_MEDIA_TYPES = new Set([
  'application/vnd.oci.image.layer.v1.tar',
  'application/vnd.oci.image.layer.v1.tar+gzip',
  'application/vnd.oci.image.layer.nondistributable.v1.tar',
  'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
]);
const DOCKER_MEDIA_TYPES = /^application\/vnd\.docker\./;

/** `org.opencontainers.image.ref.name`: the name (or tag) a layout gives a manifest. */
const REF_NAME = 'org.opencontainers.image.ref.name';
/** containerd's full image name, beside a ref.name that is only the tag. */
const CONTAINERD_NAME = 'io.containerd.image.name';

/** The image's layout, index, manifest or config is not what the specs say, or not what was asked for. */
export class OciLayoutError extends ImageStoreError {}

/** A content descriptor: what a blob is, its digest and its size. */
export interface OciDescriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly platform?: { readonly os: string; readonly architecture: string };
}

export interface OciIndex {
  readonly manifests: readonly OciDescriptor[];
}

export interface OciManifest {
  readonly config: OciDescriptor;
  readonly layers: readonly OciDescriptor[];
}

/** What a container started from the image gets by default (the image config's `config`). */
export interface ImageRunConfig {
  readonly env: readonly string[];
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly workingDir?: string;
  readonly user?: string;
}

const DIGEST = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringRecord(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || Object.values(value).some((v) => typeof v !== 'string')) throw new OciLayoutError(`${where}: annotations must map strings to strings`);
  return value as Record<string, string>;
}

/** A descriptor checked: a sha256 (or sha512) digest, a whole non-negative size. */
function parseDescriptor(value: unknown, where: string): OciDescriptor {
  if (!isRecord(value)) throw new OciLayoutError(`${where} is not a descriptor`);
  const { mediaType, digest, size, platform } = value;
  if (typeof mediaType !== 'string' || mediaType === '') throw new OciLayoutError(`${where} has no mediaType`);
  if (typeof digest !== 'string' || !DIGEST.test(digest)) throw new OciLayoutError(`${where} has no valid digest (sha256:<64 hex>): ${JSON.stringify(digest)}`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw new OciLayoutError(`${where} has no valid size: ${JSON.stringify(size)}`);
  const annotations = stringRecord(value.annotations, where);
  return {
    mediaType,
    digest,
    size,
    ...(annotations === undefined ? {} : { annotations }),
    ...(isRecord(platform) ? { platform: { os: String(platform.os), architecture: String(platform.architecture) } } : {}),
  };
}

/** An index.json (of a layout) or an image index blob. */
export function parseIndex(value: unknown, where: string): OciIndex {
  if (!isRecord(value) || !Array.isArray(value.manifests)) throw new OciLayoutError(`${where} is not an OCI image index (no "manifests" list)`);
  if (typeof value.mediaType === 'string' && DOCKER_MEDIA_TYPES.test(value.mediaType)) throw new OciLayoutError(`${where} is a Docker manifest list; convert the image to OCI (skopeo copy --format oci …)`);
  return { manifests: value.manifests.map((m, i) => parseDescriptor(m, `${where} manifests[${i}]`)) };
}

/** An image manifest: its config and layers, of media types the store can unpack. */
export function parseManifest(value: unknown, where: string): OciManifest {
  if (!isRecord(value)) throw new OciLayoutError(`${where} is not an image manifest`);
  if (typeof value.mediaType === 'string' && value.mediaType !== MEDIA_TYPE_MANIFEST) {
    const hint = DOCKER_MEDIA_TYPES.test(value.mediaType) ? '; convert the image to OCI (skopeo copy --format oci …)' : '';
    throw new OciLayoutError(`${where} has media type ${value.mediaType}, not ${MEDIA_TYPE_MANIFEST}${hint}`);
  }
  if (!Array.isArray(value.layers)) throw new OciLayoutError(`${where} has no "layers" list`);
  const config = parseDescriptor(value.config, `${where} config`);
  if (config.mediaType !== MEDIA_TYPE_CONFIG) throw new OciLayoutError(`${where} config has media type ${config.mediaType}, not ${MEDIA_TYPE_CONFIG}`);
  const layers = value.layers.map((l, i) => parseDescriptor(l, `${where} layers[${i}]`));
  for (const [i, layer] of layers.entries()) {
    if (!LAYER_MEDIA_TYPES.has(layer.mediaType)) throw new OciLayoutError(`${where} layers[${i}] has media type ${layer.mediaType}; the store unpacks ${[...LAYER_MEDIA_TYPES].join(', ')}`);
  }
  return { config, layers };
}

function stringList(value: unknown, where: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new OciLayoutError(`${where} must be a list of strings`);
  return value as string[];
}

/** The run config of an image config blob (`config.Env`, `Entrypoint`, `Cmd`, `WorkingDir`, `User`). */
export function parseImageConfig(value: unknown, where: string): ImageRunConfig {
  if (!isRecord(value)) throw new OciLayoutError(`${where} is not an image config`);
  if (value.os !== undefined && value.os !== 'linux') throw new OciLayoutError(`${where} is an image for ${JSON.stringify(value.os)}, not linux`);
  const config = value.config ?? {};
  if (!isRecord(config)) throw new OciLayoutError(`${where} "config" is not an object`);
  const entrypoint = stringList(config.Entrypoint, `${where} config.Entrypoint`);
  const cmd = stringList(config.Cmd, `${where} config.Cmd`);
  const { WorkingDir: workingDir, User: user } = config;
  return {
    env: stringList(config.Env, `${where} config.Env`) ?? [],
    ...(entrypoint === undefined ? {} : { entrypoint }),
    ...(cmd === undefined ? {} : { cmd }),
    ...(typeof workingDir === 'string' && workingDir !== '' ? { workingDir } : {}),
    ...(typeof user === 'string' && user !== '' ? { user } : {}),
  };
}

/** The name a layout's index gives a manifest: containerd's full name, else the ref.name annotation. */
export function refNameOf(descriptor: OciDescriptor): string | undefined {
  return descriptor.annotations?.[CONTAINERD_NAME] ?? descriptor.annotations?.[REF_NAME];
}

/**
 * The descriptor to import from a layout's index.json: the one whose name is `wanted` (its
 * ref.name, full or only the tag), or the only one there is. Several without a choice is an
 * error that names them.
 */
export function chooseFromLayoutIndex(index: OciIndex, wanted: { readonly names: readonly string[] } | undefined): OciDescriptor {
  if (index.manifests.length === 0) throw new OciLayoutError('the image layout\'s index.json lists no manifest');
  if (index.manifests.length === 1) return index.manifests[0] as OciDescriptor;
  const named = index.manifests.map((d) => ({ d, name: refNameOf(d) }));
  if (wanted !== undefined) {
    const match = named.filter(({ name }) => name !== undefined && wanted.names.includes(name));
    if (match.length === 1) return (match[0] as { d: OciDescriptor }).d;
  }
  const names = named.map(({ d, name }) => name ?? d.digest).join(', ');
  throw new OciLayoutError(`the image layout holds ${index.manifests.length} images (${names}); say which with --name <one of their names>`);
}

/** The manifest of an image index for this platform (linux and the host's architecture). */
export function chooseForPlatform(index: OciIndex, architecture: string, where: string): OciDescriptor {
  const manifests = index.manifests.filter((d) => d.mediaType === MEDIA_TYPE_MANIFEST);
  const match = manifests.filter((d) => d.platform === undefined || (d.platform.os === 'linux' && d.platform.architecture === architecture));
  if (match.length === 0) {
    const platforms = manifests.map((d) => `${d.platform?.os ?? '?'}/${d.platform?.architecture ?? '?'}`).join(', ');
    throw new OciLayoutError(`${where} has no image for linux/${architecture} (it has ${platforms || 'no image manifest'})`);
  }
  return match[0] as OciDescriptor;
}

/** Node's `process.arch` as OCI names it. */
export function ociArchitecture(nodeArch: string): string {
  return { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' }[nodeArch] ?? nodeArch;
}

/** The path of a blob inside a layout (digests are checked, so no path can leave `blobs/`). */
export function blobPath(digest: string): string {
  if (!DIGEST.test(digest)) throw new OciLayoutError(`${digest} is not a valid digest`);
  const [algorithm, encoded] = digest.split(':') as [string, string];
  return `blobs/${algorithm}/${encoded}`;
}
