import { Transform, type TransformCallback } from 'node:stream';
import type { TerminalSize } from './types.js';

/**
 * Turns the bytes of a resize stream — JSON objects `{"Width":80,"Height":24}` one after
 * another, as client-go's encoder writes them, split anywhere — into `TerminalSize` objects
 * (an object-mode stream, so also an `AsyncIterable<TerminalSize>`). Objects without numeric
 * sizes and malformed JSON are skipped.
 */
/** A size message is tiny; anything longer is garbage and dropped. */
const MAX_PENDING = 4096;

export class ResizeDecoder extends Transform {
  private pending = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;

  constructor() {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const offset = this.pending.length;
    this.pending += text;
    for (let i = offset; i < this.pending.length; i++) this.scan(i);
    if (this.depth === 0 || this.pending.length > MAX_PENDING) this.reset();
    callback();
  }

  private reset(): void {
    this.pending = '';
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.start = -1;
  }

  private scan(i: number): void {
    const c = this.pending[i];
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === '\\') this.escaped = true;
      else if (c === '"') this.inString = false;
      return;
    }
    if (c === '"') this.inString = this.depth > 0;
    else if (c === '{') {
      if (this.depth === 0) this.start = i;
      this.depth++;
    } else if (c === '}' && this.depth > 0) {
      this.depth--;
      if (this.depth === 0) this.emitObject(this.pending.slice(this.start, i + 1));
    }
  }

  private emitObject(json: string): void {
    try {
      const value = JSON.parse(json) as Record<string, unknown>;
      const width = value['Width'];
      const height = value['Height'];
      if (typeof width === 'number' && typeof height === 'number') this.push({ width, height } satisfies TerminalSize);
    } catch {
      // not a size: skipped, as kubelet logs and ignores it
    }
  }
}
