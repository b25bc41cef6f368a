import { Agent } from 'node:https';
import type { IdentityMaterial } from '../identity-material.js';

interface Held {
  readonly material: IdentityMaterial;
  readonly ca: string;
  readonly agent: Agent;
  inFlight: number;
  retired: boolean;
}

/** An agent lent for one request; `release()` once the request has ended. */
export interface AgentLease {
  readonly agent: Agent;
  release(): void;
}

/**
 * One keep-alive HTTPS agent per pod identity, presenting that identity's client certificate
 * (leaf + chain) to the control plane and trusting `ca`. When the identity is renewed (another
 * `IdentityMaterial`), the next request gets a new agent; the old one is destroyed once its
 * last request has ended, so no connection keeps authenticating with a replaced certificate.
 */
export class IdentityAgents {
  private current: Held | undefined;

  constructor(private readonly options: { readonly maxSockets?: number } = {}) {}

  acquire(material: IdentityMaterial, ca: string): AgentLease {
    let held = this.current;
    if (held === undefined || held.material !== material || held.ca !== ca) {
      if (held !== undefined) this.retire(held);
      held = {
        material,
        ca,
        agent: new Agent({ keepAlive: true, ca, cert: material.clientCertificate + material.chain, key: material.clientKey, maxSockets: this.options.maxSockets ?? 64 }),
        inFlight: 0,
        retired: false,
      };
      this.current = held;
    }
    const lent = held;
    lent.inFlight++;
    let released = false;
    return {
      agent: lent.agent,
      release: () => {
        if (released) return;
        released = true;
        lent.inFlight--;
        if (lent.retired && lent.inFlight === 0) lent.agent.destroy();
      },
    };
  }

  /** Whether requests now use the agent of `material` (tests). */
  serves(material: IdentityMaterial): boolean {
    return this.current?.material === material;
  }

  /** Destroys the current agent and its sockets at once (requests on them fail). */
  close(): void {
    if (this.current !== undefined) {
      this.current.retired = true;
      this.current.agent.destroy();
    }
    this.current = undefined;
  }

  private retire(held: Held): void {
    held.retired = true;
    if (held.inFlight === 0) held.agent.destroy();
  }
}
