/**
 * The part of npm `spdy-transport` 3.0.0 (no bundled types) the SPDY endpoints use: a
 * server-side connection over an upgraded socket, its incoming streams, and the frame
 * parser's header-block decoding (wrapped per connection, see `spdy-connection.ts`).
 */
declare module 'spdy-transport' {
  import type { EventEmitter } from 'node:events';
  import type { Duplex } from 'node:stream';

  export type SpdyHeaders = Record<string, string | undefined>;

  /** A SPDY stream: readable-stream's Duplex, with SPDY's reply and reset. */
  export interface SpdyStream extends Duplex {
    readonly id: number;
    readonly headers: SpdyHeaders;
    /** SYN_REPLY with `:status`. */
    respond(status: number, headers: SpdyHeaders, callback?: (error?: Error | null) => void): void;
    /** RST_STREAM (CANCEL by default). */
    abort(callback?: () => void): void;
    readonly _spdyState: { readonly window: { readonly send: WindowSide } };
  }

  /** One direction of a flow-control window; `update` defers its callback while the window is empty. */
  export interface WindowSide {
    update(size: number, callback?: () => void): void;
  }

  /** The frame parser the connection pipes its socket into (a Transform). */
  export interface SpdyParser extends NodeJS.WritableStream {
    parseKVs(buffer: unknown, callback: (error: Error | null, headers?: SpdyHeaders) => void): void;
  }

  export interface SpdyConnection extends EventEmitter {
    readonly _spdyState: { readonly parser: SpdyParser };
    /** GOAWAY, then close the socket once the open streams are done. */
    end(callback?: () => void): void;
    on(event: 'stream', listener: (stream: SpdyStream) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'close', listener: () => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export interface ConnectionOptions {
    readonly protocol: 'spdy';
    readonly isServer: boolean;
    readonly windowSize?: number;
  }

  const transport: {
    readonly connection: { create(socket: Duplex, options: ConnectionOptions): SpdyConnection };
  };
  export default transport;
}
