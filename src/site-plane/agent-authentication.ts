import type { TLSSocket } from 'node:tls';
import { StatusError } from '../apimachinery/errors/status-error.js';
import type { AgentDirectory, KnownAgent } from './agent-directory.js';
import { agentOfCommonName } from './agent-certificates.js';

const AGENTS = { resource: 'agents', group: 'sites.edgeplane.io' };

/** What a verified client certificate's subject says, or why there is none. */
type PeerIdentity =
  | { readonly kind: 'none'; readonly reason: string }
  | { readonly kind: 'certificate'; readonly commonName: string | undefined; readonly organization: string | undefined };

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The subject of the client certificate TLS verified against the platform CA. */
function peerIdentity(socket: unknown): PeerIdentity {
  const tls = socket as Partial<TLSSocket>;
  if (typeof tls.getPeerCertificate !== 'function') return { kind: 'none', reason: 'the site API needs HTTPS with a client certificate' };
  const certificate = tls.getPeerCertificate();
  if (Object.keys(certificate).length === 0) return { kind: 'none', reason: 'a site agent\'s client certificate is required' };
  if (tls.authorized !== true) return { kind: 'none', reason: `the client certificate was not accepted: ${String(tls.authorizationError ?? 'not signed by the platform CA')}` };
  return { kind: 'certificate', commonName: first(certificate.subject.CN), organization: first(certificate.subject.O) };
}

/**
 * The agent a request comes from: a client certificate verified by TLS against the platform
 * CA, whose CN is `site-agent:<agent>` and whose O is that agent's tenant. No certificate, an
 * unverified one or an agent that no longer exists → 401; a platform certificate that is not
 * an agent's (a user's API certificate) → 403.
 */
export async function authenticateAgent(agents: AgentDirectory, socket: unknown): Promise<KnownAgent> {
  const peer = peerIdentity(socket);
  if (peer.kind === 'none') throw StatusError.unauthorized(peer.reason);
  const name = agentOfCommonName(peer.commonName);
  if (name === undefined) throw StatusError.forbidden(AGENTS, '', `the client certificate (CN=${peer.commonName ?? ''}) is not a site agent's`);
  const agent = await agents.get(name);
  if (agent === undefined || agent.record.tenant !== peer.organization) throw StatusError.unauthorized(`site agent ${name} is not registered`);
  return agent;
}
