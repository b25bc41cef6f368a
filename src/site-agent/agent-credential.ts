import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-file.js';

/** What registration leaves an agent: its key, client certificate and the CA, and what it registered. */
export interface AgentCredential {
  readonly server: string;
  readonly agent: string;
  /** PEM PKCS#8 private key (ECDSA P-256), made locally and never sent. */
  readonly key: string;
  /** PEM chain: the client certificate (CN `site-agent:<agent>`), then the CA. */
  readonly certificate: string;
  /** PEM of the platform CA, the only one the agent trusts. */
  readonly ca: string;
  /** The site names the server confirmed. */
  readonly sites: readonly string[];
  /** Digest of the registered site facts: a restart with other facts registers again. */
  readonly factsDigest: string;
}

const FILES = { key: 'agent.key', certificate: 'agent.crt', ca: 'ca.crt', state: 'agent.json' } as const;

/** The credential kept in `home`, or undefined when there is none (or it is incomplete). */
export function loadAgentCredential(home: string): AgentCredential | undefined {
  const path = (name: string): string => join(home, name);
  if (!Object.values(FILES).every((name) => existsSync(path(name)))) return undefined;
  const state = JSON.parse(readFileSync(path(FILES.state), 'utf8')) as Partial<Pick<AgentCredential, 'server' | 'agent' | 'sites' | 'factsDigest'>>;
  if (typeof state.server !== 'string' || typeof state.agent !== 'string' || !Array.isArray(state.sites) || typeof state.factsDigest !== 'string') {
    throw new Error(`${path(FILES.state)} is not an agent state file; remove ${home} to register afresh`);
  }
  return {
    server: state.server,
    agent: state.agent,
    sites: state.sites,
    factsDigest: state.factsDigest,
    key: readFileSync(path(FILES.key), 'utf8'),
    certificate: readFileSync(path(FILES.certificate), 'utf8'),
    ca: readFileSync(path(FILES.ca), 'utf8'),
  };
}

/**
 * Keeps the credential in `home` (created 0700): every file mode 0600, each written
 * atomically; the state file goes last, so a crash midway leaves the previous credential
 * or an incomplete one that {@link loadAgentCredential} ignores.
 */
export function saveAgentCredential(home: string, credential: AgentCredential): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileAtomic(join(home, FILES.key), credential.key, 0o600);
  writeFileAtomic(join(home, FILES.certificate), credential.certificate, 0o600);
  writeFileAtomic(join(home, FILES.ca), credential.ca, 0o600);
  const state = { server: credential.server, agent: credential.agent, factsDigest: credential.factsDigest, sites: credential.sites };
  writeFileAtomic(join(home, FILES.state), JSON.stringify(state) + '\n', 0o600);
}
