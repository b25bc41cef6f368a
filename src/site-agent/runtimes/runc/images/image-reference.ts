import { ImageStoreError } from './image-store-error.js';

/**
 * Image names as Docker normalises them (distribution/reference's rules): `busybox` is
 * `docker.io/library/busybox:latest`, `ghcr.io/x/y` keeps its registry, a name pinned with
 * `@sha256:…` refers to that manifest digest. Pure.
 */

const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_PREFIX = 'library/';
const DEFAULT_TAG = 'latest';

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** A name the store cannot take: what is wrong with it. */
export class ImageReferenceError extends ImageStoreError {}

/** A parsed image reference: the full repository name and a tag or a digest (never neither). */
export interface ImageReference {
  /** `docker.io/library/busybox`, `registry.example:5000/team/app`. */
  readonly repository: string;
  readonly tag?: string;
  /** `sha256:<64 hex>`, when the reference pins a manifest. */
  readonly digest?: string;
}

/** Parses and normalises an image reference; a reference with neither tag nor digest gets `latest`. */
export function parseImageReference(text: string): ImageReference {
  const problem = (why: string): ImageReferenceError => new ImageReferenceError(`"${text}" is not an image name: ${why}`);
  if (text === '') throw problem('it is empty');
  if (text.length > 255 + 128 + 72) throw problem('it is too long');
  let rest = text;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw problem(`"${digest}" is not a sha256 digest (sha256:<64 lowercase hex>)`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw problem(`"${tag}" is not a tag (letters, digits, "_", "." and "-", at most 128)`);
  }
  const parts = rest.split('/');
  let domain = DEFAULT_DOMAIN;
  const first = parts[0] ?? '';
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase())) {
    if (!DOMAIN.test(first)) throw problem(`"${first}" is not a registry host`);
    domain = first === LEGACY_DEFAULT_DOMAIN ? DEFAULT_DOMAIN : first;
    parts.shift();
  }
  for (const part of parts) {
    if (!PATH_COMPONENT.test(part)) throw problem(`"${part}" is not a name component (lowercase letters, digits and separators)`);
  }
  let path = parts.join('/');
  if (domain === DEFAULT_DOMAIN && parts.length === 1) path = `${OFFICIAL_PREFIX}${path}`;
  const repository = `${domain}/${path}`;
  if (repository.length > 255) throw problem('the repository name is longer than 255 characters');
  if (tag === undefined && digest === undefined) tag = DEFAULT_TAG;
  return { repository, ...(tag === undefined ? {} : { tag }), ...(digest === undefined ? {} : { digest }) };
}

/** The reference written out in full: `docker.io/library/busybox:latest`, `…@sha256:…`. */
export function canonicalImageName(reference: ImageReference): string {
  return `${reference.repository}${reference.tag === undefined ? '' : `:${reference.tag}`}${reference.digest === undefined ? '' : `@${reference.digest}`}`;
}

/** The reference as people write it: Docker Hub's domain and `library/` left out (`busybox:latest`). */
export function familiarImageName(reference: ImageReference): string {
  let repository = reference.repository;
  if (repository.startsWith(`${DEFAULT_DOMAIN}/`)) {
    repository = repository.slice(DEFAULT_DOMAIN.length + 1);
    if (repository.startsWith(OFFICIAL_PREFIX) && !repository.slice(OFFICIAL_PREFIX.length).includes('/')) repository = repository.slice(OFFICIAL_PREFIX.length);
  }
  return canonicalImageName({ ...reference, repository });
}
