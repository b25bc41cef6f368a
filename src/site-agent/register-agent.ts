import { Agent } from 'node:https';
import { httpsRequest } from '../client/https-client.js';
import { createAgentCsr } from './agent-csr.js';
import { SiteApiError } from './site-api-error.js';
import type { RegisterResponse, RegisterSite } from '../site-api/site-api-types.js';

export interface RegisterAgentOptions {
  readonly server: string;
  /** The pinned platform CA. */
  readonly ca: string;
  /** The registration token as printed (sent as a bearer token). */
  readonly token: string;
  readonly agent: string;
  readonly sites: readonly RegisterSite[];
  /** The agent's existing key (PEM), kept on re-registration; default: a new key. */
  readonly key?: string;
  /** Sites per request (default 500): large fleets register in several requests. */
  readonly chunkSize?: number;
  /** Called after each request with the sites registered so far. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface Registration {
  readonly key: string;
  readonly certificate: string;
  readonly ca: string;
  readonly sites: readonly string[];
}

/**
 * Registers the agent's sites (`POST /api/sites/v1/register`, contract (6)) with one CSR for
 * the agent's key; many sites go in requests of `chunkSize`, each adding to the same agent
 * (the certificate of the last answer is kept). Throws {@link SiteApiError} on a refusal.
 */
export async function registerAgent(options: RegisterAgentOptions): Promise<Registration> {
  const { csr, key } = await createAgentCsr(options.agent, options.key);
  const chunkSize = Math.max(1, options.chunkSize ?? 500);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const registered: string[] = [];
  let last: RegisterResponse | undefined;
  try {
    for (let start = 0; start < options.sites.length || last === undefined; start += chunkSize) {
      const sites = options.sites.slice(start, start + chunkSize);
      const res = await httpsRequest(`${options.server}/api/sites/v1/register`, options.ca, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: options.agent, csr, sites }),
      });
      if (res.status !== 200 && res.status !== 201) throw SiteApiError.of('registration refused', res.status, res.body);
      last = res.json<RegisterResponse>();
      if (typeof last.certificate !== 'string' || typeof last.ca !== 'string') throw new Error('the registration answer has no certificate');
      registered.push(...(Array.isArray(last.sites) ? (last.sites as readonly unknown[]).map(String) : sites.map((s) => s.name)));
      options.onProgress?.(Math.min(start + chunkSize, options.sites.length), options.sites.length);
    }
  } finally {
    agent.destroy();
  }
  if (last === undefined) throw new Error('registration sent no request');
  return { key, certificate: last.certificate, ca: last.ca, sites: registered };
}
