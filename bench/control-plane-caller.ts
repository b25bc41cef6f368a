import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpsRequest, type HttpsResponse } from '../src/client/https-client.js';
import type { ControlPlane } from '../src/server/control-plane.js';

interface CallOptions {
  /** API token to send (default the tenant admin's); null sends none. */
  readonly token?: string | null;
  readonly body?: unknown;
  readonly cert?: string;
  readonly key?: string;
  readonly headers?: Record<string, string>;
}

/** A benchmark's client of an in-process control plane: its admin tokens, calls over HTTPS, and a check of the answer. */
export interface ControlPlaneCaller {
  readonly tokens: { readonly tenant: string; readonly platform: string };
  readonly call: (method: string, path: string, options?: CallOptions) => Promise<HttpsResponse>;
  /** The answer when 200/201; throws naming the status and body otherwise (setup steps). */
  readonly must: (response: Promise<HttpsResponse>) => Promise<HttpsResponse>;
}

export function controlPlaneCaller(controlPlane: ControlPlane, home: string): ControlPlaneCaller {
  const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
  const tokens = { tenant: readFileSync(join(home, 'api-token'), 'utf8').trim(), platform: readFileSync(join(home, 'platform-api-token'), 'utf8').trim() };
  return {
    tokens,
    call: (method, path, o = {}) => {
      const token = o.token === undefined ? tokens.tenant : o.token;
      return httpsRequest(`${controlPlane.url}${path}`, ca, {
        method,
        headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `APIToken ${token}` }), ...o.headers },
        ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
        ...(o.cert === undefined ? {} : { cert: o.cert, key: o.key ?? '' }),
      });
    },
    must: async (res) => {
      const answer = await res;
      if (answer.status !== 200 && answer.status !== 201) throw new Error(`setup: HTTP ${answer.status}: ${answer.body}`);
      return answer;
    },
  };
}
