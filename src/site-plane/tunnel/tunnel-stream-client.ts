import { constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { encodeHeaderJson, TUNNEL_REQUEST_HEADER, type TunnelRequest } from '../../site-api/tunnel-protocol.js';
import { StreamError } from '../../vk8s/streams/index.js';

const MAX_REFUSAL_BYTES = 16 * 1024;

/** The stream error of a tunnel that went away under a stream. */
export function lostSite(site: string): StreamError {
  return StreamError.node(500, `the connection to site ${JSON.stringify(site)} was lost; it will be back when its agent reconnects`);
}

const idled = new WeakSet<ClientHttp2Stream>();

/** The error of a stream closed by the idle timeout, or undefined when it was not. */
export function idleTimeoutOf(stream: ClientHttp2Stream, idleTimeoutMs: number): StreamError | undefined {
  return idled.has(stream) ? StreamError.node(500, `the stream was closed after ${Math.round(idleTimeoutMs / 1000)} s without traffic (the streaming idle timeout)`) : undefined;
}

/**
 * Opens one stream on a site's tunnel and waits for the site's answer: resolves with the
 * stream on `200` (its body is the log, the forwarded connection or the session's frames);
 * a refusal becomes kubelet's StreamError (code and text); a tunnel that goes away first
 * becomes {@link lostSite}. With `idleTimeoutMs`, a stream with no traffic that long is
 * cancelled (kubelet's streaming idle timeout).
 */
export function openTunnelStream(session: ClientHttp2Session, request: TunnelRequest, options: { readonly endStream: boolean; readonly idleTimeoutMs?: number }): Promise<ClientHttp2Stream> {
  const site = request.target.site;
  return new Promise((resolve, reject) => {
    let stream: ClientHttp2Stream;
    try {
      stream = session.request({ ':method': 'POST', ':path': `/v1/${request.kind}`, [TUNNEL_REQUEST_HEADER]: encodeHeaderJson(request) }, { endStream: options.endStream });
    } catch {
      reject(lostSite(site));
      return;
    }
    let answered = false;
    stream.on('error', () => answered || reject(lostSite(site)));
    stream.once('close', () => answered || reject(lostSite(site)));
    if (options.idleTimeoutMs !== undefined && options.idleTimeoutMs > 0) stream.setTimeout(options.idleTimeoutMs, () => {
        idled.add(stream);
        stream.close(constants.NGHTTP2_CANCEL);
      });
    stream.once('response', (headers: IncomingHttpHeaders) => {
      const status = Number(headers[':status']);
      answered = true;
      if (status === 200) return resolve(stream);
      void readRefusal(stream).then((text) => reject(StreamError.node(status, text)));
    });
  });
}

async function readRefusal(stream: ClientHttp2Stream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (size < MAX_REFUSAL_BYTES) chunks.push(chunk);
      size += chunk.length;
    }
  } catch {
    // the tunnel went away while the refusal was read: keep what came
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_REFUSAL_BYTES);
}
