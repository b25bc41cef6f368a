import { createHash } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import { x509 } from '../common/x509.js';
import { type AgentCredential, loadAgentCredential, saveAgentCredential } from './agent-credential.js';
import { caPinOf, checkCaPin } from '../common/ca-pin.js';
import { fetchPinnedCa } from '../common/fetch-pinned-ca.js';
import { registerAgent } from './register-agent.js';
import { parseRegistrationToken } from './registration-token.js';
import type { RegisterSite } from '../site-api/site-api-types.js';

export interface EnsureCredentialOptions {
  /** Where the credential is kept. */
  readonly home: string;
  readonly agent: string;
  readonly sites: readonly RegisterSite[];
  /** The registration token; needed unless a stored credential still fits. */
  readonly token?: string;
  /** Overrides the server named by the token (or the stored one). */
  readonly server?: string;
  readonly logger: Logger;
  readonly chunkSize?: number;
  readonly onProgress?: (done: number, total: number) => void;
  readonly now?: () => Date;
}

/** A certificate this close to expiry counts as expired, so the agent registers again. */
const RENEW_BEFORE_MS = 60 * 60 * 1000;

function siteFactsDigest(agent: string, sites: readonly RegisterSite[]): string {
  return createHash('sha256').update(JSON.stringify({ agent, sites })).digest('hex');
}

/** Whether the certificate is still valid for longer than `marginMs`. */
function certificateUsable(pem: string, now: Date, marginMs = RENEW_BEFORE_MS): boolean {
  try {
    return new x509.X509Certificate(pem).notAfter.getTime() - now.getTime() > marginMs;
  } catch {
    return false;
  }
}

/**
 * The agent's credential: the stored one when it was made for the same server, agent and
 * site facts and is not near expiry; otherwise registration with the token: the CA is taken
 * from the stored credential when its pin matches the token, else fetched and pinned; the
 * agent keeps its key across registrations. The result is stored in `home` before it is returned.
 * A stored credential for the same sites that is near expiry but still valid is used when no
 * token is given or registering fails (the control plane unreachable): startup never waits for it.
 */
export async function ensureAgentCredential(options: EnsureCredentialOptions): Promise<AgentCredential> {
  const { logger } = options;
  const now = options.now?.() ?? new Date();
  const token = options.token === undefined ? undefined : parseRegistrationToken(options.token);
  const stored = loadAgentCredential(options.home);
  const server = (options.server ?? token?.server ?? stored?.server ?? '').replace(/\/+$/, '');
  if (server === '') throw new Error(`no credential in ${options.home} and no registration token: pass --registration-token (print one with \`edgeplane site token\`)`);
  const digest = siteFactsDigest(options.agent, options.sites);
  const same = stored !== undefined && stored.server === server && stored.agent === options.agent && stored.factsDigest === digest ? stored : undefined;
  if (same !== undefined && certificateUsable(same.certificate, now)) {
    logger.info({ home: options.home, sites: same.sites.length }, 'using the stored site credential');
    return same;
  }
  // Expiring but valid, for the same sites: what the agent runs on until it can register again (offline, or given no token).
  const expiring = same !== undefined && certificateUsable(same.certificate, now, 0) ? same : undefined;
  if (token === undefined && expiring !== undefined) {
    logger.warn({ home: options.home }, 'the stored site credential expires within the hour: restart the agent with --registration-token to renew it');
    return expiring;
  }
  if (token === undefined) {
    throw new Error(
      stored === undefined
        ? `no credential in ${options.home}: pass --registration-token (print one with \`edgeplane site token\`)`
        : `the credential in ${options.home} was made for other site facts, another server, or is expiring: registering again needs --registration-token`,
    );
  }
  try {
    return await register(options, token, server, digest, stored);
  } catch (error) {
    if (expiring === undefined) throw error;
    logger.warn({ err: error, home: options.home }, 'registering again failed: running on the stored site credential until it expires');
    return expiring;
  }
}

async function register(
  options: EnsureCredentialOptions,
  token: ReturnType<typeof parseRegistrationToken>,
  server: string,
  digest: string,
  stored: AgentCredential | undefined,
): Promise<AgentCredential> {
  const { logger } = options;
  const ca = stored !== undefined && stored.server === server && caPinOf(stored.ca) === token.ca ? stored.ca : await fetchPinnedCa(server, token.ca);
  logger.info({ server, agent: options.agent, sites: options.sites.length }, 'registering');
  const registration = await registerAgent({
    server,
    ca,
    token: token.raw,
    agent: options.agent,
    sites: options.sites,
    ...(stored?.agent === options.agent ? { key: stored.key } : {}),
    ...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  checkCaPin(registration.ca, token.ca);
  const credential: AgentCredential = { server, agent: options.agent, key: registration.key, certificate: registration.certificate, ca: registration.ca, sites: registration.sites, factsDigest: digest };
  saveAgentCredential(options.home, credential);
  logger.info({ home: options.home, sites: registration.sites.length }, 'registered; credential stored');
  return credential;
}
