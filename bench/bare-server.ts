import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A fixed answer: what the bare server sends for one method and path. */
interface FixedResponse {
  readonly status: number;
  readonly body: Buffer;
}

export interface BareServer {
  readonly url: string;
  /** Answers `method path` (path without query) with `response` from now on. */
  answer(method: string, path: string, response: FixedResponse): void;
  /** Open chunked responses of `GET /watch`. */
  readonly watchers: number;
  /** Writes `line` to every open `/watch` response. */
  push(line: string): void;
  close(): Promise<void>;
}

/**
 * The floor the control plane's figures stand on: `node:https` with the control plane's TLS
 * settings (its serving certificate, TLS ≥ 1.2, a client certificate asked for but not
 * required), reading each request body and answering a fixed body; `GET /watch` holds a
 * chunked 200 open and gets whatever {@link BareServer.push} writes. No routing framework,
 * no authentication, no storage, no serialization.
 */
export async function startBareServer(pkiDir: string): Promise<BareServer> {
  const answers = new Map<string, FixedResponse>();
  const streams = new Set<ServerResponse>();
  const server: Server = createServer(
    {
      cert: readFileSync(join(pkiDir, 'apiserver.crt')),
      key: readFileSync(join(pkiDir, 'apiserver.key')),
      ca: readFileSync(join(pkiDir, 'ca.crt')),
      minVersion: 'TLSv1.2',
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (req.method === 'GET' && path === '/watch') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
        res.flushHeaders();
        streams.add(res);
        res.on('close', () => streams.delete(res));
        return;
      }
      req.resume();
      req.on('end', () => {
        const answer = answers.get(`${req.method ?? 'GET'} ${path}`);
        if (answer === undefined) res.writeHead(404).end();
        else res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': answer.body.length }).end(answer.body);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (method, path, response) => void answers.set(`${method} ${path}`, response),
    get watchers() {
      return streams.size;
    },
    push: (line) => {
      for (const res of streams) res.write(line);
    },
    close: async () => {
      for (const res of streams) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
