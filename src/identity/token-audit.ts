import { hostname } from 'node:os';
import { StatusError } from '../apimachinery/errors/status-error.js';
import type { Principal } from '../auth/principal.js';
import { eventName, newEvent } from '../vk8s/event-object.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { Clock } from '../common/clock.js';
import type { KubeObject } from '../apimachinery/object.js';
import { metav1Time } from '../apimachinery/meta-time.js';

const TOKEN_ISSUED_REASON = 'IdentityTokenIssued';
const COMPONENT = 'edgeplane-identity';

/**
 * Records who minted a bootstrap token as a Normal Event on the pod (reason
 * `IdentityTokenIssued`): the user, the credential and the expiry — never the token. Written
 * directly, awaited and never rate-limited (an audit record, not a controller's notice), so
 * the token is answered only once its record exists.
 */
export class TokenAudit {
  private lastNanos = 0n;
  private readonly host = hostname();

  constructor(
    private readonly events: GenericStore,
    private readonly clock: Clock,
  ) {}

  async tokenIssued(cluster: ClusterRef, pod: KubeObject, principal: Principal, expiresAt: Date): Promise<void> {
    const now = this.clock.now();
    const message = `bootstrap token for pod ${pod.metadata.name ?? ''} issued to user ${principal.user} (credential ${principal.credential}); it expires at ${metav1Time(expiresAt)}`;
    for (let attempt = 0; ; attempt++) {
      const name = eventName(pod, this.nextNanos(now)) ?? '';
      try {
        await this.events.create(
          { cluster, dryRun: false, fieldManager: COMPONENT },
          newEvent({ object: pod, name, namespace: cluster.namespace, type: 'Normal', reason: TOKEN_ISSUED_REASON, message, component: COMPONENT, host: this.host, now }),
        );
        return;
      } catch (error) {
        // Another server named an Event of this pod at the same nanosecond: take the next one.
        if (!(error instanceof StatusError && error.reason === 'AlreadyExists') || attempt >= 3) throw error;
      }
    }
  }

  /** Unix nanoseconds of `now`, strictly increasing across calls (names stay unique here). */
  private nextNanos(now: Date): bigint {
    const nanos = BigInt(now.getTime()) * 1_000_000n;
    this.lastNanos = nanos > this.lastNanos ? nanos : this.lastNanos + 1n;
    return this.lastNanos;
  }
}
