import { connect, type TLSSocket } from 'node:tls';
import type { Target } from './watch-protocol.js';

/**
 * One watch as the fan-out benchmark's client process holds it: a TLS connection, a GET, the
 * response head checked (200, chunked), then its body de-chunked and split into lines.
 *
 * Not node:https: a thousand watches receiving a hundred events a second each are 100,000
 * records a second in one process, and node's HTTP client (its parser, a second readable
 * stream per response, an event per body piece) costs about as much per record as the TLS
 * decryption and the read itself. Time the client spends on a record is counted as delivery
 * latency, and on a two-core machine it is taken from the server: the leaner client measures
 * the server more closely. Bytes are read as latin1 (one character per byte, so the chunk
 * sizes count characters); {@link onLine} gets each line that way.
 */
export function openWatchConnection(target: Target, onLine: (line: string) => void, onEnd: () => void): Promise<TLSSocket> {
  const url = new URL(`${target.url}${target.path}`);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: target.ca });
    const headers = Object.entries({ host: url.host, accept: 'application/json', ...target.headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\n${headers.join('')}\r\n`);
    socket.setEncoding('latin1');
    const body = new ChunkedLines(onLine);
    let head = '';
    let open = false;
    socket.on('data', (data: string) => {
      if (open) return body.push(data);
      head += data;
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = /^HTTP\/1\.1 (\d+)/.exec(head)?.[1];
      if (status !== '200' || !/\r\ntransfer-encoding: chunked\r\n/i.test(head.slice(0, end + 2))) {
        socket.destroy();
        return reject(new Error(`watch answered ${status ?? 'no status'}: ${head.slice(0, 200)}`));
      }
      open = true;
      resolve(socket);
      body.push(head.slice(end + 4));
    });
    socket.on('error', (error: Error) => (open ? undefined : reject(error)));
    socket.on('close', () => (open ? onEnd() : reject(new Error('watch connection closed before its response'))));
  });
}

/** A chunked body's bytes (as latin1) to lines: chunk sizes and framing removed, lines joined across chunks. */
export class ChunkedLines {
  private input = '';
  /** Characters of the current chunk's data still to come; -1 between chunks (a size line is next). */
  private remaining = -1;
  private line = '';
  /** After the last chunk, or a malformed size line (its events then count as lost). */
  private ended = false;

  constructor(private readonly onLine: (line: string) => void) {}

  push(data: string): void {
    if (this.ended) return;
    this.input = this.input === '' ? data : this.input + data;
    let at = 0;
    for (;;) {
      if (this.remaining < 0) {
        const eol = this.input.indexOf('\r\n', at);
        if (eol < 0) break;
        this.remaining = Number.parseInt(this.input.slice(at, eol), 16);
        at = eol + 2;
        if (this.remaining === 0 || Number.isNaN(this.remaining)) {
          this.ended = true;
          return;
        }
        continue;
      }
      const take = Math.min(this.remaining, this.input.length - at);
      if (take === 0 && this.remaining > 0) break;
      this.data(this.input.slice(at, at + take));
      at += take;
      this.remaining -= take;
      if (this.remaining > 0) break;
      if (this.input.length - at < 2) break; // the CRLF after the data has not come yet
      at += 2;
      this.remaining = -1;
    }
    this.input = this.input.slice(at);
  }

  private data(piece: string): void {
    let start = 0;
    let newline = piece.indexOf('\n');
    while (newline >= 0) {
      this.onLine(this.line === '' ? piece.slice(start, newline) : this.line + piece.slice(start, newline));
      this.line = '';
      start = newline + 1;
      newline = piece.indexOf('\n', start);
    }
    if (start < piece.length) this.line += piece.slice(start);
  }
}
