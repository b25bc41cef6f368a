/**
 * HTTP/1.1 chunked transfer coding of watch lines: a watch event's line is framed once and
 * the same bytes go to every watch stream (see ObjectCodec.eventChunk and the vK8s watch
 * stream's ChunkWriter).
 */

/** `body` as one chunk: its length in hex, CRLF, the bytes, CRLF. */
export function frameChunk(body: Buffer): Buffer {
  const size = `${body.length.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(size.length + body.length + 2);
  chunk.write(size, 0, 'latin1');
  body.copy(chunk, size.length);
  chunk[chunk.length - 2] = 0x0d;
  chunk[chunk.length - 1] = 0x0a;
  return chunk;
}

/** The body of a chunk made by {@link frameChunk} (a view, not a copy). */
export function chunkBody(chunk: Buffer): Buffer {
  return chunk.subarray(chunk.indexOf(0x0a) + 1, chunk.length - 2);
}
