import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { toolPath } from './tools.js';

/**
 * Builds small OCI images for tests, as files: tar layers (ustar, written here), a config, a
 * manifest and an image layout (`oci-layout`, `index.json`, `blobs/sha256/…`), and the same
 * layout as an OCI archive (a tar of it, what `skopeo copy … oci-archive:` makes). No
 * registry, no container tool: the bytes are exactly what the specs say.
 */

/** One member of a layer. Whiteouts are files named `.wh.<name>` or `.wh..wh..opq`, as in the spec. */
export type LayerEntry =
  | { readonly type: 'file'; readonly path: string; readonly content: string | Buffer; readonly mode?: number; readonly uid?: number; readonly gid?: number }
  | { readonly type: 'dir'; readonly path: string; readonly mode?: number }
  | { readonly type: 'symlink'; readonly path: string; readonly target: string };

export interface OciImageSpec {
  readonly layers: readonly (readonly LayerEntry[])[];
  /** The image config's `config` (Env, Entrypoint, Cmd, WorkingDir, User). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** `org.opencontainers.image.ref.name` on the manifest in index.json; none when undefined. */
  readonly refName?: string;
  /** Gzip the layers (`…tar+gzip`); plain tars otherwise. */
  readonly gzip?: boolean;
}

export interface BuiltOciImage {
  readonly layoutDir: string;
  readonly manifestDigest: string;
  readonly configDigest: string;
  readonly layerDigests: readonly string[];
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, options: { size: number; mode: number; type: string; linkname?: string; uid?: number; gid?: number }): Buffer {
  const block = Buffer.alloc(BLOCK);
  let prefix = '';
  let short = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    short = name.slice(cut + 1);
  }
  block.write(short, 0, 100, 'utf8');
  block.write(octal(options.mode, 8), 100, 'latin1');
  block.write(octal(options.uid ?? 0, 8), 108, 'latin1');
  block.write(octal(options.gid ?? 0, 8), 116, 'latin1');
  block.write(octal(options.size, 12), 124, 'latin1');
  block.write(octal(1_700_000_000, 12), 136, 'latin1');
  block.write('        ', 148, 'latin1');
  block.write(options.type, 156, 'latin1');
  if (options.linkname !== undefined) block.write(options.linkname, 157, 100, 'utf8');
  block.write('ustar\0', 257, 'latin1');
  block.write('00', 263, 'latin1');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 'latin1');
  return block;
}

/** A ustar archive of the entries, in order. */
export function tarArchive(entries: readonly LayerEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const path = entry.path.replace(/^\/+/, '');
    if (entry.type === 'dir') parts.push(header(`${path}/`, { size: 0, mode: entry.mode ?? 0o755, type: '5' }));
    else if (entry.type === 'symlink') parts.push(header(path, { size: 0, mode: 0o777, type: '2', linkname: entry.target }));
    else {
      const content = typeof entry.content === 'string' ? Buffer.from(entry.content) : entry.content;
      parts.push(header(path, { size: content.length, mode: entry.mode ?? 0o644, type: '0', ...(entry.uid === undefined ? {} : { uid: entry.uid }), ...(entry.gid === undefined ? {} : { gid: entry.gid }) }));
      parts.push(content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function putBlob(layoutDir: string, bytes: Buffer): string {
  const digest = sha256(bytes);
  writeFileSync(join(layoutDir, 'blobs', 'sha256', digest.slice('sha256:'.length)), bytes);
  return digest;
}

/** Writes the image as an OCI image layout in `layoutDir` (made if needed). */
export function writeOciLayout(layoutDir: string, spec: OciImageSpec): BuiltOciImage {
  mkdirSync(join(layoutDir, 'blobs', 'sha256'), { recursive: true });
  const layers = spec.layers.map((entries) => {
    const tar = tarArchive(entries);
    const bytes = spec.gzip === true ? gzipSync(tar) : tar;
    return { bytes, diffId: sha256(tar), digest: putBlob(layoutDir, bytes) };
  });
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: spec.config ?? {},
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
      history: layers.map(() => ({ created_by: 'oci-image-builder' })),
    }),
  );
  const configDigest = putBlob(layoutDir, config);
  const layerType = spec.gzip === true ? 'application/vnd.oci.image.layer.v1.tar+gzip' : 'application/vnd.oci.image.layer.v1.tar';
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
      layers: layers.map((l) => ({ mediaType: layerType, digest: l.digest, size: l.bytes.length })),
    }),
  );
  const manifestDigest = putBlob(layoutDir, manifest);
  const descriptor = {
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    digest: manifestDigest,
    size: manifest.length,
    ...(spec.refName === undefined ? {} : { annotations: { 'org.opencontainers.image.ref.name': spec.refName } }),
  };
  writeFileSync(join(layoutDir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(join(layoutDir, 'index.json'), JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [descriptor] }));
  return { layoutDir, manifestDigest, configDigest, layerDigests: layers.map((l) => l.digest) };
}

/** Writes the layout folder as an OCI archive (a tar of it) at `file`. */
export function writeOciArchive(layoutDir: string, file: string): void {
  const entries: LayerEntry[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(layoutDir, path);
      if (statSync(path).isDirectory()) {
        entries.push({ type: 'dir', path: rel });
        walk(path);
      } else entries.push({ type: 'file', path: rel, content: readFileSync(path) });
    }
  };
  walk(layoutDir);
  writeFileSync(file, tarArchive(entries));
}

/**
 * A tiny runnable image from Debian's busybox-static (the provisioned `busybox` tool): layer 1
 * holds /bin/busybox with /bin/sh and a few applet links, /etc/passwd, /etc/removed and
 * /opaque/old; layer 2 deletes /etc/removed (a `.wh.` whiteout), makes /opaque opaque
 * (`.wh..wh..opq`, hiding /opaque/old) and adds /opaque/new and /etc/added.
 */
export function busyboxImageSpec(options: { readonly refName?: string; readonly gzip?: boolean } = {}): OciImageSpec {
  const busybox = readFileSync(toolPath('busybox'));
  const applets = ['sh', 'ls', 'cat', 'echo', 'sleep', 'httpd', 'id', 'touch'];
  return {
    layers: [
      [
        { type: 'dir', path: 'bin' },
        { type: 'file', path: 'bin/busybox', content: busybox, mode: 0o755 },
        ...applets.map((a): LayerEntry => ({ type: 'symlink', path: `bin/${a}`, target: 'busybox' })),
        { type: 'dir', path: 'etc' },
        { type: 'file', path: 'etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' },
        { type: 'file', path: 'etc/group', content: 'root:x:0:\nnogroup:x:65534:\n' },
        { type: 'file', path: 'etc/removed', content: 'removed by layer 2\n' },
        { type: 'dir', path: 'opaque' },
        { type: 'file', path: 'opaque/old', content: 'hidden by layer 2\n' },
        { type: 'dir', path: 'tmp', mode: 0o1777 },
        { type: 'file', path: 'home/app/owned', content: 'owned by 1000\n', uid: 1000, gid: 1000 },
      ],
      [
        { type: 'dir', path: 'etc' },
        { type: 'file', path: 'etc/.wh.removed', content: '' },
        { type: 'file', path: 'etc/added', content: 'added by layer 2\n' },
        { type: 'dir', path: 'opaque' },
        { type: 'file', path: 'opaque/.wh..wh..opq', content: '' },
        { type: 'file', path: 'opaque/new', content: 'new in layer 2\n' },
      ],
    ],
    config: { Env: ['PATH=/bin', 'GREETING=hello'], Entrypoint: ['/bin/sh', '-c'], Cmd: ['echo $GREETING'], WorkingDir: '/tmp', User: '65534:65534' },
    ...(options.refName === undefined ? {} : { refName: options.refName }),
    ...(options.gzip === undefined ? {} : { gzip: options.gzip }),
  };
}
