import type { PodStreamTarget, SiteAttachOptions, SiteExecOptions, SiteLogOptions } from './pod-streams.js';

/**
 * The site tunnel (docs/TUNNEL.md). An agent dials the control plane over TLS with its client
 * certificate and asks `GET /api/sites/v1/tunnel` with `Upgrade: edgeplane-tunnel.v1`; after
 * `101` the roles reverse: the agent is the HTTP/2 server on its own dialled socket, the
 * control plane the HTTP/2 client, opening one stream per log, exec, attach or forwarded
 * connection. HTTP/2 gives each stream its own flow control, so one stalled reader stalls
 * only its stream.
 */
export const TUNNEL_PATH = '/api/sites/v1/tunnel';
export const TUNNEL_PROTOCOL = 'edgeplane-tunnel.v1';

/** Request header of a tunnel stream: the {@link TunnelRequest} as base64url JSON. */
export const TUNNEL_REQUEST_HEADER = 'edgeplane-request';
/** Trailer of an exec or attach stream: the command's exit code. */
export const EXIT_CODE_TRAILER = 'edgeplane-exit-code';
/** Trailer of an exec or attach stream that failed after it started: a {@link TunnelFailure} as base64url JSON. */
export const FAILURE_TRAILER = 'edgeplane-failure';

/** What the control plane asks of a site on one tunnel stream. */
export type TunnelRequest =
  | { readonly kind: 'logs'; readonly target: PodStreamTarget; readonly options: SiteLogOptions }
  | { readonly kind: 'exec'; readonly target: PodStreamTarget; readonly options: SiteExecOptions }
  | { readonly kind: 'attach'; readonly target: PodStreamTarget; readonly options: SiteAttachOptions }
  | { readonly kind: 'portforward'; readonly target: PodStreamTarget; readonly port: number };

/** A site's refusal: kubelet's HTTP code and text. */
export interface TunnelFailure {
  readonly code: number;
  readonly message: string;
}

export function encodeHeaderJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The value of a base64url JSON header, or undefined when it is not one. */
export function decodeHeaderJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const KINDS: ReadonlySet<string> = new Set(['logs', 'exec', 'attach', 'portforward']);

/**
 * Checks the shape a site relies on; the control plane is trusted, but a malformed request
 * must be refused, never half-served.
 */
export function parseTunnelRequest(value: unknown): TunnelRequest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r['kind'] !== 'string' || !KINDS.has(r['kind'])) return undefined;
  const target = r['target'] as Record<string, unknown> | undefined;
  const cluster = target?.['cluster'] as Record<string, unknown> | undefined;
  const strings = [target?.['name'], target?.['uid'], target?.['site'], target?.['container'], cluster?.['tenant'], cluster?.['namespace'], cluster?.['name']];
  if (!strings.every((s) => typeof s === 'string')) return undefined;
  if (r['kind'] === 'portforward') {
    const port = r['port'];
    return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? (value as TunnelRequest) : undefined;
  }
  if (typeof r['options'] !== 'object' || r['options'] === null) return undefined;
  if (r['kind'] === 'exec' && !Array.isArray((r['options'] as Record<string, unknown>)['command'])) return undefined;
  return value as TunnelRequest;
}

/**
 * The channels of an exec or attach stream's bodies. Each frame is one byte of channel, four
 * bytes of big-endian length, then the payload — the WebSocket channel idea of kube, with a
 * length because an HTTP/2 body has no message boundaries.
 */
export const Channel = {
  /** control plane → site */
  stdin: 0,
  /** control plane → site: the client closed its input (no payload). */
  stdinEnd: 1,
  /** control plane → site: a terminal size, JSON `{width,height}`. */
  resize: 2,
  /** site → control plane */
  stdout: 1,
  /** site → control plane */
  stderr: 2,
} as const;

const FRAME_HEADER_BYTES = 5;
/** Largest payload of one frame; bigger writes are split. */
export const MAX_FRAME_PAYLOAD = 64 * 1024;

export function frameHeader(channel: number, length: number): Buffer {
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt8(channel, 0);
  header.writeUInt32BE(length, 1);
  return header;
}

/**
 * Splits a byte stream into frames; feed it chunks as they come. Pure: returns the frames
 * completed by this chunk and keeps the rest. A frame longer than {@link MAX_FRAME_PAYLOAD}
 * is a protocol error.
 */
export class FrameDecoder {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): { readonly channel: number; readonly payload: Buffer }[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: { channel: number; payload: Buffer }[] = [];
    let offset = 0;
    while (this.pending.length - offset >= FRAME_HEADER_BYTES) {
      const length = this.pending.readUInt32BE(offset + 1);
      if (length > MAX_FRAME_PAYLOAD) throw new Error(`a tunnel frame of ${length} bytes is longer than ${MAX_FRAME_PAYLOAD}`);
      if (this.pending.length - offset - FRAME_HEADER_BYTES < length) break;
      const start = offset + FRAME_HEADER_BYTES;
      frames.push({ channel: this.pending.readUInt8(offset), payload: this.pending.subarray(start, start + length) });
      offset = start + length;
    }
    this.pending = offset === this.pending.length ? Buffer.alloc(0) : this.pending.subarray(offset);
    return frames;
  }

  /** Bytes of an unfinished frame (a body that ends here was cut). */
  get buffered(): number {
    return this.pending.length;
  }
}
