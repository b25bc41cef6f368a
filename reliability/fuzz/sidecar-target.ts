import fc from 'fast-check';
import type { FuzzEnvironment } from './fuzz-environment.js';
import { type FuzzAnswer, send } from './fuzz-request.js';
import type { FuzzTarget } from './fuzz-run.js';
import { encode, encoding, type EncodingChoice, mutated, oddString } from './fuzz-values.js';

const PATHS = ['/status', '/creds/pki/server/key', '/creds/pki/client/cert', '/creds/pki/server/cert-only', '/creds/pki/x/key', '/creds/pki/client/x', '/trust/pki/server_ca', '/trust/pki/client_ca', '/trust/pki/x', '/secret/unseal', '/', '/secret', '/status/', '//status', '/creds/pki/client/key?x=1', '/%2e%2e/status'];
const CONTENT_TYPES = ['application/json', 'APPLICATION/JSON; charset=utf-8', '', 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx'];
const HOSTS = ['127.0.0.1', 'localhost', '[::1]', 'localhost.', 'evil.example', '127.0.0.1.nip.io', '', '127.0.0.2'];

interface Case {
  readonly method: string;
  readonly path: string;
  readonly host: string;
  readonly contentType: string;
  readonly body: unknown;
  readonly enc: EncodingChoice;
}

const unsealBody = fc.oneof(
  mutated({ type: 'blindfold', location: 'string:///ZXlKaGJHY2lPaUpTVTBFdFQwRkZVQzB5TlRZaUxDSmxibU1pT2lKQk1qVTJSME5OSW4w', encoding_type: 'EncodingNone' }),
  mutated({ type: 'vault', provider: 'vault', location: 'v1/secret/data/app', key: 'password', version: 3, encoding_type: 'EncodingBase64' }),
  fc.record({ type: fc.constantFrom('blindfold', 'vault', 'aws', ''), location: fc.oneof(oddString, oddString.map((s) => `string:///${Buffer.from(s).toString('base64')}`)) }, { requiredKeys: [] }),
);

/** The 5xx answers docs/SIDECAR.md lists: not ready (503), and a Vault that is unreachable (503) or fails TLS (502). */
function documented(answer: FuzzAnswer): boolean {
  if (answer.status === 503 && answer.body.startsWith('edgeplane sidecar is still not ready')) return true;
  return (answer.status === 502 || answer.status === 503) && answer.body.startsWith('Vault ');
}

/**
 * The sidecar's HTTP API (plain HTTP on loopback, in this process, with a real identity from
 * the control plane): every path with every method, loopback and other Host names, and
 * `POST /secret/unseal` with blindfold and Vault requests mutated from valid ones. After each
 * case the sidecar still answers READY.
 */
export function sidecarTarget(env: FuzzEnvironment): FuzzTarget<Case> {
  const port = new URL(env.sidecarApi.url).port;
  return {
    name: 'sidecar',
    arbitrary: fc.record({
      method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST') }, fc.constantFrom('HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH')),
      path: fc.oneof({ weight: 6, arbitrary: fc.constant('/secret/unseal') }, { weight: 6, arbitrary: fc.constantFrom(...PATHS) }, oddString.map((s) => `/${encodeURIComponent(Buffer.from(s).toString())}`)),
      host: fc.oneof({ weight: 8, arbitrary: fc.constant('127.0.0.1') }, fc.constantFrom(...HOSTS)),
      contentType: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, fc.constantFrom(...CONTENT_TYPES)),
      body: unsealBody,
      enc: encoding,
    }),
    documented5xx: documented,
    async run(c) {
      const body = c.method === 'GET' || c.method === 'HEAD' ? undefined : encode(c.body, c.enc);
      const answer = await send(env.sidecarApi, {
        method: c.method,
        path: c.path,
        headers: { host: c.host === '' ? '' : `${c.host}:${port}`, ...(c.contentType === '' ? {} : { 'content-type': c.contentType }) },
        ...(body === undefined ? {} : { body }),
      });
      const status = await send(env.sidecarApi, { method: 'GET', path: '/status', headers: {} });
      return { answer, ...(status.status === 200 && status.body === 'READY' ? {} : { problem: `after it the sidecar's /status answers ${status.status} ${status.body}` }) };
    },
  };
}
