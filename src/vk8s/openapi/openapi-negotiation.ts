/** The representations `/openapi/v2` has, as kube-apiserver 1.17's kube-openapi handler offers them, in its order. */
export type OpenApiFormat = 'json' | 'protobuf';

/** kube-openapi's protobuf media type (gnostic `openapi.v2.Document`). */
export const OPENAPI_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const OFFERED: ReadonlyArray<{ readonly type: string; readonly subtype: string; readonly format: OpenApiFormat }> = [
  { type: 'application', subtype: 'json', format: 'json' },
  { type: 'application', subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', format: 'protobuf' },
];

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
  readonly specificity: number;
}

function parseRange(text: string): MediaRange | undefined {
  const [mediaType = '', ...params] = text.split(';').map((part) => part.trim());
  const slash = mediaType.indexOf('/');
  const type = slash < 0 ? mediaType : mediaType.slice(0, slash);
  const subtype = slash < 0 ? '*' : mediaType.slice(slash + 1);
  if (type === '') return undefined;
  let q = 1;
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim());
    if (name?.toLowerCase() === 'q') q = Number(value);
  }
  if (!Number.isFinite(q) || q <= 0) return undefined;
  return { type, subtype, q, specificity: (type === '*' ? 0 : 1) + (subtype === '*' ? 0 : 1) };
}

/**
 * The representation to serve for an `Accept` header, as kube-openapi chooses it: media
 * ranges by descending quality, the more specific first among equals, and the first offered
 * format each range matches (so the `*` wildcards and a missing header get JSON).
 * Undefined when nothing acceptable is offered (406).
 */
export function negotiateOpenApiFormat(accept: string | undefined): OpenApiFormat | undefined {
  const header = accept === undefined || accept.trim() === '' ? '*/*' : accept;
  const ranges = header
    .split(',')
    .map(parseRange)
    .filter((r): r is MediaRange => r !== undefined)
    .sort((a, b) => b.q - a.q || b.specificity - a.specificity);
  for (const range of ranges) {
    const offer = OFFERED.find((o) => (range.type === '*' || range.type === o.type) && (range.subtype === '*' || range.subtype === o.subtype));
    if (offer !== undefined) return offer.format;
  }
  return undefined;
}

/** Whether `Accept-Encoding` allows gzip (not excluded with `q=0`). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((coding) => {
    const [name = '', ...params] = coding.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    return name.toLowerCase() === 'gzip' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** Whether an `If-None-Match` header matches an entity tag (weak comparison, `*`, lists). */
export function ifNoneMatchMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
