import { hostname } from 'node:os';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { Logger } from '../../observability/logger.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Clock } from '../../common/clock.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { clusterKeyOf } from '../runtime/object-key.js';
import { EventCorrelator, type EventCorrelatorOptions } from './event-correlator.js';
import { eventName, newEvent, type EventType } from '../../vk8s/event-object.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

export interface EventRecorder {
  /**
   * Records a core/v1 Event in `cluster` about `object` (kube's aggregation: same
   * object+reason+message → count++). Never throws (failures are logged); fire-and-forget.
   * `host`: the event's `source.host` when not this process's (kubelet's events name the node).
   */
  record(cluster: ClusterRef, object: KubeObject, type: EventType, reason: string, message: string, component?: string, host?: string): void;
}

export interface EventRecorderOptions extends EventCorrelatorOptions {
  readonly storage: Pick<VirtualClusterStorage, 'storeFor'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `source.component` when `record` names none (default `edgeplane-controller-manager`). */
  readonly component?: string;
  /** `source.host` and `reportingInstance` (default the machine's host name). */
  readonly host?: string;
  /** Writes queued at once; beyond, events are dropped (default 1000). */
  readonly maxPending?: number;
}

/** The recorder with what tests and shutdown need. */
export interface StoreEventRecorder extends EventRecorder {
  /** Resolves when every write queued so far has finished. */
  idle(): Promise<void>;
  /** Events dropped so far (spam filter or queue full). */
  readonly dropped: number;
}

interface Pending {
  readonly cluster: ClusterRef;
  readonly object: KubeObject;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly component: string;
  readonly host: string;
  /** When `record` was called: the Event's time. */
  readonly at: Date;
}

/**
 * kube's event recorder (client-go tools/record) writing through the events GenericStore:
 * Events named `<object>.<hex nanoseconds>`, repeats within 10 minutes aggregated into one
 * Event (count, lastTimestamp), a token bucket per source and object so a hot loop cannot
 * flood the store, writes for one aggregation key made one after another, and a bound on
 * writes in flight. Failures are logged, never thrown.
 */
export function createEventRecorder(options: EventRecorderOptions): StoreEventRecorder {
  const events = options.storage.storeFor({ group: '', resource: 'events' });
  if (events === undefined) throw new Error('the virtual cluster storage has no events store');
  return new Recorder(events, options);
}

class Recorder implements StoreEventRecorder {
  private readonly correlator: EventCorrelator;
  private readonly chains = new Map<string, Promise<void>>();
  private readonly host: string;
  private readonly component: string;
  private pending = 0;
  private lastNanos = 0n;
  dropped = 0;

  constructor(
    private readonly events: GenericStore,
    private readonly options: EventRecorderOptions,
  ) {
    this.correlator = new EventCorrelator(options);
    this.host = options.host ?? hostname();
    this.component = options.component ?? 'edgeplane-controller-manager';
  }

  record(cluster: ClusterRef, object: KubeObject, type: EventType, reason: string, message: string, component?: string, host?: string): void {
    try {
      const event: Pending = { cluster, object, type, reason, message, component: component ?? this.component, host: host ?? this.host, at: this.options.clock.now() };
      // Joined rather than concatenated: the correlator keeps these keys, and a concatenation
      // would be kept as a tree of a dozen string pieces each.
      const who = [clusterKeyOf(cluster), object.kind, object.metadata.name ?? '', object.metadata.uid ?? '', event.component, event.host].join('|');
      if (this.pending >= (this.options.maxPending ?? 1000) || !this.correlator.allow(who, event.at.getTime())) {
        this.dropped++;
        this.options.logger.debug({ cluster, object: object.metadata.name, reason, message }, 'event dropped (rate limited)');
        return;
      }
      const key = [who, type, reason, message].join('|');
      this.pending++;
      const next = (this.chains.get(key) ?? Promise.resolve())
        .then(() => this.write(key, event))
        .catch((error: unknown) => this.options.logger.warn({ err: error, cluster, object: object.metadata.name, reason }, 'could not record an event'))
        .finally(() => {
          this.pending--;
          if (this.chains.get(key) === next) this.chains.delete(key);
        });
      this.chains.set(key, next);
    } catch (error) {
      this.options.logger.warn({ err: error, reason }, 'could not record an event');
    }
  }

  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  private async write(key: string, event: Pending): Promise<void> {
    const now = event.at;
    const scope: RequestScope = { cluster: event.cluster, dryRun: false, fieldManager: event.component };
    const existing = this.correlator.existing(key, now.getTime());
    if (existing !== undefined) {
      try {
        await this.events.update(
          scope,
          existing.name,
          (current) => ({ ...current, count: (typeof current['count'] === 'number' ? current['count'] : 1) + 1, lastTimestamp: metav1Time(now) }),
          { retryOnConflict: true },
        );
        this.correlator.written(key, existing.name, now.getTime());
        return;
      } catch (error) {
        if (!(error instanceof StatusError && error.reason === 'NotFound')) throw error;
        this.correlator.forget(key);
      }
    }
    const name = eventName(event.object, this.nextNanos(now));
    if (name === undefined) return;
    const created = await this.events.create(scope, newEvent({ ...event, name, namespace: event.cluster.namespace, now }));
    this.correlator.written(key, created.metadata.name ?? name, now.getTime());
  }

  /** Unix nanoseconds of `now`, strictly increasing across calls (names stay unique). */
  private nextNanos(now: Date): bigint {
    const nanos = BigInt(now.getTime()) * 1_000_000n;
    this.lastNanos = nanos > this.lastNanos ? nanos : this.lastNanos + 1n;
    return this.lastNanos;
  }
}
