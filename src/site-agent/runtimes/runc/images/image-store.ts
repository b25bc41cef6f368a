import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { canonicalImageName, familiarImageName, type ImageReference, parseImageReference } from './image-reference.js';
import { ImageStoreError } from './image-store-error.js';
import { withStoreLock } from './image-store-lock.js';
import { readMountTable } from '../../../host/index.js';
import { extractOciArchive } from './oci-archive.js';
import {
  blobPath,
  chooseForPlatform,
  chooseFromLayoutIndex,
  type ImageRunConfig,
  MEDIA_TYPE_INDEX,
  MEDIA_TYPE_MANIFEST,
  type OciDescriptor,
  ociArchitecture,
  OciLayoutError,
  parseImageConfig,
  parseIndex,
  parseManifest,
  refNameOf,
} from './oci-image-layout.js';
import { copyVerifiedBlob, readVerifiedJson, verifyBlob } from './verified-blob.js';

/** An image the store holds, ready to run: its manifest digest (a pod's `imageID`), its root and its run config. */
export interface ResolvedImage {
  readonly digest: string;
  /** The unpacked root file system; never written (containers get an overlay on it: `mountContainerRoot`). */
  readonly rootfs: string;
  readonly config: ImageRunConfig;
}

/** What `import` did. */
export interface ImportedImage extends ResolvedImage {
  /** The name it is stored under, as people write it (`busybox:latest`). */
  readonly name: string;
  /** The image was there already under another name (or this one): nothing was unpacked. */
  readonly alreadyPresent: boolean;
}

/** One name in the store. */
export interface ImageListEntry {
  readonly name: string;
  readonly digest: string;
  readonly importedAt: string;
}

export interface ImageStoreOptions {
  /** The store's folder (`<site home>/images`); made, owner-only, on first import. */
  readonly dir: string;
  /** The umoci binary that unpacks layers (Debian's `umoci`), and what it needs in its environment. */
  readonly umoci: { readonly path: string; readonly env?: Readonly<Record<string, string>> };
  /** OCI architecture of the images to pick from a multi-platform index; the host's by default. */
  readonly architecture?: string;
}

interface NameRecord {
  readonly name: string;
  readonly digest: string;
  readonly importedAt: string;
}

const STAGING = '.staging';
const NAMES = 'names';
const IMAGES = 'sha256';
const UNPACK_TAG = 'edgeplane-import';
const MiB = 1024 * 1024;
const PROGRESS_STEP = 64 * MiB;

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

function short(digest: string): string {
  return digest.slice(0, 'sha256:'.length + 12);
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A progress callback that speaks every PROGRESS_STEP bytes. */
function byteProgress(say: ((line: string) => void) | undefined, label: string): ((bytes: number) => void) | undefined {
  if (say === undefined) return undefined;
  let next = PROGRESS_STEP;
  return (bytes) => {
    if (bytes < next) return;
    next = (Math.floor(bytes / PROGRESS_STEP) + 1) * PROGRESS_STEP;
    say(`${label}: ${mib(bytes)}`);
  };
}

/** Where a site keeps its images: `<site home>/images`. */
export function siteImageStoreDir(siteHome: string): string {
  return join(siteHome, 'images');
}

/**
 * A site's local OCI image store. No registry can be reached from a site, so images are
 * imported from an OCI archive or image-layout folder: every blob is verified against its
 * digest and size, the layers are unpacked in order by umoci (whiteouts and opaque folders
 * applied, ownership kept) into one root per manifest digest, and names point at digests.
 *
 * On disk (`dir`, owner-only since image roots may hold set-uid programs):
 * `sha256/<hex>/{manifest.json,config.json,rootfs/}` per image, `names/<name>` per name (a
 * small JSON record), `.staging/` for imports under way. An import is built entirely in
 * `.staging/` and appears by renames, under a lock, so a crash leaves no half image visible;
 * leftovers of dead importers are removed by the next import.
 */
export class ImageStore {
  private readonly dir: string;

  constructor(private readonly options: ImageStoreOptions) {
    this.dir = resolvePath(options.dir);
  }

  /**
   * Imports an OCI archive or image-layout folder. The name is `name` (Docker-normalised, a
   * tag, never a digest), or the image's own (`org.opencontainers.image.ref.name` in the
   * layout's index). `progress` hears a line per step and every 64 MiB of a big blob.
   */
  async import(source: string, options: { readonly name?: string; readonly progress?: (line: string) => void } = {}): Promise<ImportedImage> {
    const say = options.progress;
    const wantedRef = options.name === undefined ? undefined : this.tagReference(options.name);
    const sourceStat = await stat(source).catch(() => undefined);
    if (sourceStat === undefined) throw new ImageStoreError(`${source}: no such file or folder`);
    await mkdir(join(this.dir, STAGING), { recursive: true, mode: 0o700 });
    await this.removeDeadStaging();
    const staging = await mkdtemp(join(this.dir, STAGING, `${process.pid}-`));
    try {
      let sourceLayout = source;
      const owned = sourceStat.isFile();
      if (owned) {
        say?.(`reading OCI archive ${source} (${mib(sourceStat.size)})`);
        sourceLayout = join(staging, 'archive');
        await extractOciArchive(source, sourceLayout, byteProgress(say, 'read'));
      } else if (!sourceStat.isDirectory()) {
        throw new ImageStoreError(`${source} is neither an OCI archive nor an OCI image-layout folder`);
      }
      const layout = join(staging, 'layout');
      await mkdir(join(layout, 'blobs', 'sha256'), { recursive: true });
      const bring = async (descriptor: OciDescriptor, what: string): Promise<string> => {
        const from = join(sourceLayout, blobPath(descriptor.digest));
        const to = join(layout, blobPath(descriptor.digest));
        if (await exists(to)) return to;
        await mkdir(join(to, '..'), { recursive: true });
        const progress = byteProgress(say, `${what} ${short(descriptor.digest)}`);
        if (owned) {
          await verifyBlob(from, descriptor, what, progress);
          await rename(from, to);
        } else {
          await copyVerifiedBlob(from, to, descriptor, what, progress);
        }
        return to;
      };

      const index = parseIndex(await this.readLayoutIndex(sourceLayout, source), `${source} index.json`);
      let chosen = chooseFromLayoutIndex(index, wantedRef === undefined ? undefined : { names: this.namesToMatch(wantedRef) });
      const refName = refNameOf(chosen);
      if (chosen.mediaType === MEDIA_TYPE_INDEX) {
        const nested = parseIndex(await readVerifiedJson(await bring(chosen, 'image index'), chosen, 'image index'), `image index ${short(chosen.digest)}`);
        chosen = chooseForPlatform(nested, this.options.architecture ?? ociArchitecture(process.arch), `image index ${short(chosen.digest)}`);
      } else if (chosen.mediaType !== MEDIA_TYPE_MANIFEST) {
        throw new OciLayoutError(`the image's index points at ${chosen.mediaType}, not an OCI image manifest or index`);
      }
      const reference = wantedRef ?? this.nameFromImage(refName, source);
      const manifestPath = await bring(chosen, 'manifest');
      const manifest = parseManifest(await readVerifiedJson(manifestPath, chosen, 'manifest'), `manifest ${short(chosen.digest)}`);
      const configPath = await bring(manifest.config, 'config');
      const config = parseImageConfig(await readVerifiedJson(configPath, manifest.config, 'config'), `config ${short(manifest.config.digest)}`);
      const total = manifest.layers.reduce((sum, l) => sum + l.size, 0);
      say?.(`verifying ${manifest.layers.length} layer(s), ${mib(total)}`);
      for (const [i, layer] of manifest.layers.entries()) {
        await bring(layer, `layer ${i + 1}/${manifest.layers.length}`);
        say?.(`layer ${i + 1}/${manifest.layers.length} ${short(layer.digest)} (${mib(layer.size)}) verified`);
      }

      const digest = chosen.digest;
      const imageDir = this.imageDir(digest);
      const alreadyPresent = await exists(imageDir);
      const built = join(staging, 'image');
      if (!alreadyPresent) {
        await mkdir(built);
        await writeFile(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
        const unpackDescriptor = { ...chosen, annotations: { 'org.opencontainers.image.ref.name': UNPACK_TAG } };
        await writeFile(join(layout, 'index.json'), JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPE_INDEX, manifests: [unpackDescriptor] }));
        say?.(`unpacking ${manifest.layers.length} layer(s) with umoci`);
        await this.unpack(layout, join(built, 'rootfs'));
        await rename(manifestPath, join(built, 'manifest.json'));
        await rename(configPath, join(built, 'config.json'));
      }
      const record: NameRecord = { name: canonicalImageName(reference), digest, importedAt: new Date().toISOString() };
      const recordFile = join(staging, 'name.json');
      await writeFile(recordFile, JSON.stringify(record) + '\n', { mode: 0o600 });
      await withStoreLock(this.dir, async () => {
        await mkdir(join(this.dir, IMAGES), { recursive: true });
        await mkdir(join(this.dir, NAMES), { recursive: true });
        if (!(await exists(imageDir))) {
          if (alreadyPresent) throw new ImageStoreError(`image ${digest} was removed while it was imported again; run the import again`);
          await rename(built, imageDir);
        }
        await rename(recordFile, this.nameFile(reference));
      });
      say?.(`imported ${familiarImageName(reference)} (${digest})`);
      return { name: familiarImageName(reference), digest, rootfs: join(imageDir, 'rootfs'), config, alreadyPresent };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /**
   * The image a pod names (`busybox`, `docker.io/library/busybox:latest`, `busybox@sha256:…`),
   * or undefined when the store does not have it. An invalid name throws an ImageStoreError.
   */
  async resolve(image: string): Promise<ResolvedImage | undefined> {
    const reference = parseImageReference(image);
    let digest: string | undefined;
    if (reference.digest !== undefined) {
      const records = await this.records();
      if (records.some((r) => r.digest === reference.digest && parseImageReference(r.name).repository === reference.repository)) digest = reference.digest;
    } else {
      digest = (await this.readRecord(this.nameFile(reference)))?.digest;
    }
    if (digest === undefined) return undefined;
    const imageDir = this.imageDir(digest);
    const configText = await readFile(join(imageDir, 'config.json'), 'utf8').catch(() => undefined);
    if (configText === undefined) return undefined;
    return { digest, rootfs: join(imageDir, 'rootfs'), config: parseImageConfig(JSON.parse(configText) as unknown, `config of ${digest}`) };
  }

  /** Every name in the store, sorted, as people write them. */
  async list(): Promise<ImageListEntry[]> {
    const records = await this.records();
    return records.map((r) => ({ name: familiarImageName(parseImageReference(r.name)), digest: r.digest, importedAt: r.importedAt })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Removes a name (`name@sha256:…`: every name of that repository on that digest), then every
   * image no name points at and no container root is mounted on. Returns the names removed
   * and the digests of the images deleted.
   */
  async remove(image: string): Promise<{ readonly untagged: readonly string[]; readonly deleted: readonly string[] }> {
    const reference = parseImageReference(image);
    return withStoreLock(this.dir, async () => {
      const records = await this.records();
      const doomed = records.filter((r) => {
        const stored = parseImageReference(r.name);
        if (reference.digest !== undefined) return stored.repository === reference.repository && r.digest === reference.digest;
        return r.name === canonicalImageName(reference);
      });
      if (doomed.length === 0) throw new ImageStoreError(`no image ${image} in the store (${this.dir}); "edgeplane image list" shows what there is`);
      for (const record of doomed) await rm(this.nameFile(parseImageReference(record.name)), { force: true });
      const deleted = await this.collectGarbage(records.filter((r) => !doomed.includes(r)));
      return { untagged: doomed.map((r) => familiarImageName(parseImageReference(r.name))), deleted };
    });
  }

  /** Deletes the images no remaining name points at, unless a container root is mounted on them. */
  private async collectGarbage(remaining: readonly NameRecord[]): Promise<string[]> {
    const wanted = new Set(remaining.map((r) => r.digest));
    const hexes = await readdir(join(this.dir, IMAGES)).catch(() => [] as string[]);
    const lowers = new Set((await readMountTable()).filter((m) => m.fsType === 'overlay').flatMap((m) => /(?:^|,)lowerdir=([^,]*)/.exec(m.superOptions)?.[1]?.split(':') ?? []));
    const deleted: string[] = [];
    for (const hex of hexes) {
      const digest = `sha256:${hex}`;
      if (wanted.has(digest) || lowers.has(join(this.imageDir(digest), 'rootfs'))) continue;
      const trash = await mkdtemp(join(this.dir, STAGING, `${process.pid}-rm-`));
      await rename(this.imageDir(digest), join(trash, 'image'));
      await rm(trash, { recursive: true, force: true });
      deleted.push(digest);
    }
    return deleted;
  }

  private tagReference(name: string): ImageReference {
    const reference = parseImageReference(name);
    if (reference.digest !== undefined) throw new ImageStoreError(`--name ${name}: an image is stored under a name and tag, not a digest (its digest is its manifest's)`);
    return reference;
  }

  /** The ref.name values that select `reference` in a layout holding several images. */
  private namesToMatch(reference: ImageReference): string[] {
    return [canonicalImageName(reference), familiarImageName(reference), reference.tag ?? ''].filter((n) => n !== '');
  }

  private nameFromImage(refName: string | undefined, source: string): ImageReference {
    if (refName === undefined) throw new ImageStoreError(`${source} does not name its image (no org.opencontainers.image.ref.name annotation): give one with --name <name:tag>`);
    try {
      return this.tagReference(refName);
    } catch (error) {
      throw new ImageStoreError(`${source} names its image "${refName}", which is not a usable name (${(error as Error).message}): give one with --name <name:tag>`);
    }
  }

  private async readLayoutIndex(layout: string, source: string): Promise<unknown> {
    const marker = await readFile(join(layout, 'oci-layout'), 'utf8').catch(() => undefined);
    if (marker === undefined) throw new OciLayoutError(`${source} is not an OCI image layout (it has no oci-layout file)`);
    let version: unknown;
    try {
      version = (JSON.parse(marker) as { imageLayoutVersion?: unknown }).imageLayoutVersion;
    } catch {
      version = undefined;
    }
    if (typeof version !== 'string' || !version.startsWith('1.')) throw new OciLayoutError(`${source}: oci-layout does not say imageLayoutVersion 1.x`);
    const info = await stat(join(layout, 'index.json')).catch(() => undefined);
    if (info === undefined) throw new OciLayoutError(`${source} has no index.json`);
    if (info.size > 4 * MiB) throw new OciLayoutError(`${source} index.json is larger than 4 MiB`);
    try {
      return JSON.parse(await readFile(join(layout, 'index.json'), 'utf8')) as unknown;
    } catch {
      throw new OciLayoutError(`${source} index.json is not JSON`);
    }
  }

  private unpack(layout: string, rootfs: string): Promise<void> {
    const { path, env } = this.options.umoci;
    const args = ['raw', 'unpack', '--image', `${layout}:${UNPACK_TAG}`, rootfs];
    return new Promise((resolve, reject) => {
      execFile(path, args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 16 * MiB }, (error, _stdout, stderr) => {
        if (error === null) return resolve();
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new ImageStoreError(`umoci is needed to unpack images and ${path} is not there: install Debian's umoci (apt-get install umoci)`));
        reject(new ImageStoreError(`umoci could not unpack the image: ${stderr.trim().split('\n').slice(-3).join(' / ') || error.message}`));
      });
    });
  }

  private async records(): Promise<NameRecord[]> {
    const files = await readdir(join(this.dir, NAMES)).catch(() => [] as string[]);
    const records = await Promise.all(files.filter((f) => !f.startsWith('.')).map((f) => this.readRecord(join(this.dir, NAMES, f))));
    return records.filter((r): r is NameRecord => r !== undefined);
  }

  private async readRecord(file: string): Promise<NameRecord | undefined> {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    const record = JSON.parse(text) as NameRecord;
    return typeof record.name === 'string' && typeof record.digest === 'string' ? record : undefined;
  }

  private nameFile(reference: ImageReference): string {
    return join(this.dir, NAMES, encodeURIComponent(canonicalImageName({ repository: reference.repository, tag: reference.tag ?? 'latest' })));
  }

  private imageDir(digest: string): string {
    if (!/^sha256:[a-f0-9]{64}$/.test(digest)) throw new ImageStoreError(`the store keeps sha256 images only, not ${digest}`);
    return join(this.dir, IMAGES, digest.slice('sha256:'.length));
  }

  /** Removes what importers that died left in `.staging/`. */
  private async removeDeadStaging(): Promise<void> {
    for (const entry of await readdir(join(this.dir, STAGING)).catch(() => [] as string[])) {
      const pid = Number(entry.split('-')[0]);
      if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) await rm(join(this.dir, STAGING, entry), { recursive: true, force: true });
    }
  }
}
