import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { acceptsGzip, ifNoneMatchMatches, negotiateOpenApiFormat, OPENAPI_PROTOBUF_TYPE, type OpenApiFormat } from './openapi-negotiation.js';

/** The request headers `/openapi/v2` looks at. */
export interface OpenApiRequest {
  readonly accept?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
  readonly acceptEncoding?: string | undefined;
}

export interface OpenApiResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

interface Representation {
  readonly contentType: string;
  readonly body: Buffer;
  /** `"<uppercase hex SHA-512 of the body>"`, quotes included. */
  readonly etag: string;
  gzipped?: Buffer;
}

function representation(contentType: string, body: Buffer): Representation {
  return { contentType, body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` };
}

/**
 * `/openapi/v2` of the virtual clusters, answered like kube-apiserver 1.17 answers it: the
 * same document as JSON or as gnostic protobuf, chosen by `Accept` (protobuf for
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, sent as
 * `application/octet-stream`, which is what kubectl 1.20 can parse; JSON for
 * `application/json` and wildcards; 406 with a NotAcceptable Status otherwise). Each
 * representation has its own ETag (uppercase hex SHA-512 of its bytes); a matching
 * `If-None-Match` gets 304 with no body. `Vary: Accept, Accept-Encoding`, `Last-Modified` the
 * time the document was built; gzip when the client accepts it. Built once, then a pure
 * function of the request headers (the gzip forms are computed on first use and kept).
 */
export class OpenApiV2Document {
  private readonly representations: Readonly<Record<OpenApiFormat, Representation>>;
  private readonly lastModified: string;

  constructor(document: { readonly json: Buffer; readonly protobuf: Buffer }, builtAt: Date) {
    this.representations = {
      json: representation('application/json', document.json),
      protobuf: representation('application/octet-stream', document.protobuf),
    };
    this.lastModified = builtAt.toUTCString();
  }

  /** The body and ETag of one representation (for tests and diagnostics). */
  entity(format: OpenApiFormat): { readonly body: Buffer; readonly etag: string } {
    const { body, etag } = this.representations[format];
    return { body, etag };
  }

  respond(request: OpenApiRequest): OpenApiResponse {
    const vary = 'Accept, Accept-Encoding';
    const format = negotiateOpenApiFormat(request.accept);
    if (format === undefined) {
      const error = new StatusError('NotAcceptable', `only the following media types are accepted: application/json, ${OPENAPI_PROTOBUF_TYPE}`);
      return { statusCode: error.code, headers: { 'content-type': 'application/json', vary }, body: Buffer.from(JSON.stringify(error.toStatus())) };
    }
    const chosen = this.representations[format];
    if (ifNoneMatchMatches(request.ifNoneMatch, chosen.etag)) {
      return { statusCode: 304, headers: { etag: chosen.etag, vary }, body: Buffer.alloc(0) };
    }
    const headers: Record<string, string> = { 'content-type': chosen.contentType, etag: chosen.etag, 'last-modified': this.lastModified, vary };
    if (!acceptsGzip(request.acceptEncoding)) return { statusCode: 200, headers, body: chosen.body };
    chosen.gzipped ??= gzipSync(chosen.body);
    return { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: chosen.gzipped };
  }
}
