import type { Duplex } from 'node:stream';
import { POD_RELAY_PATH, POD_RELAY_PROTOCOL } from '../../site-api/pod-relay-protocol.js';
import type { AgentCredential } from '../agent-credential.js';
import { dialUpgrade } from './dial-upgrade.js';

/**
 * Opens one pod relay connection (`src/site-api/pod-relay-protocol.ts`): `GET
 * /api/sites/v1/pod-relay` upgraded with the agent's client certificate. What the pod sends
 * into it reaches the control plane's pod-facing API and nothing else. A refusal throws
 * SiteApiError with the server's code.
 */
export function dialPodRelay(credential: Pick<AgentCredential, 'server' | 'ca' | 'certificate' | 'key'>): Promise<Duplex> {
  return dialUpgrade(credential, { path: POD_RELAY_PATH, protocol: POD_RELAY_PROTOCOL, what: 'opening a pod relay connection' });
}
