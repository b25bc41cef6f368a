import type { Logger } from '../../observability/logger.js';
import { isStoreError } from '../../store/errors.js';
import type { KeyValue, LeaseId, Store } from '../../store/types.js';
import { realScheduler, type Scheduler } from '../../common/timers.js';

export interface LeaderElectionOptions {
  readonly store: Store;
  /** The election's name: the key is `/leases/controllers/<name>`. */
  readonly name: string;
  /** This candidate, written into the key's value (`holderIdentity`); unique per process. */
  readonly identity: string;
  /** The store lease's TTL (default 15 s, kube's leaseDuration). */
  readonly ttlSeconds?: number;
  /** How often the leader renews its lease (default 5 s; kube's retryPeriod is 2 s, its renewDeadline 10 s). */
  readonly renewIntervalMs?: number;
  /** A waiting candidate also tries again this often, should a watch miss the release (default 5 s). */
  readonly retryIntervalMs?: number;
  readonly logger: Logger;
  readonly schedule?: Scheduler;
  /** Milliseconds of wall time (the renew deadline); default `Date.now`. */
  readonly now?: () => number;
  /** Became the leader: start working until `signal` aborts. A rejection gives up the lease. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** No longer the leader (lease lost, released or stopped): stop at once. Awaited before campaigning again. */
  readonly onStoppedLeading: () => void | Promise<void>;
}

export interface LeaderElector {
  /** Settles once the first campaign decided: not the leader, or leading with the controllers started. */
  readonly firstAttempt: Promise<void>;
  readonly isLeader: boolean;
  /** Stops campaigning; a leader revokes its lease so another candidate takes over at once. */
  stop(): Promise<void>;
}

/** What the election key holds (kube's LeaderElectionRecord, trimmed). */
export interface LeaderRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: string;
}

export function leaderElectionKey(name: string): string {
  return `/leases/controllers/${name}`;
}

/**
 * client-go's leader election over a store lease instead of a Lease object: the leader is
 * whoever created `/leases/controllers/<name>` attached to its own store lease; the key goes
 * when the lease is revoked or expires (TTL), which is what candidates watch for before
 * trying again. The leader keeps its lease alive; it stops leading at once — aborting the
 * signal given to `onStartedLeading` and calling `onStoppedLeading` — when the key is deleted
 * or rewritten, the lease is gone, or no renewal succeeded for `ttl − renewInterval`.
 */
export function startLeaderElection(options: LeaderElectionOptions): LeaderElector {
  const { store, logger } = options;
  const key = leaderElectionKey(options.name);
  const ttlSeconds = options.ttlSeconds ?? 15;
  const renewMs = options.renewIntervalMs ?? 5000;
  const retryMs = options.retryIntervalMs ?? 5000;
  const schedule = options.schedule ?? realScheduler;
  const now = options.now ?? Date.now;
  const stopping = new AbortController();
  let leading = false;
  let lease: LeaseId | undefined;

  const sleepOrEvent = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const onAbort = (): void => {
        cancel();
        resolve();
      };
      const cancel = schedule(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });

  /** The key and lease when acquired; `taken` when another holds it; `failed` when the store failed. */
  const tryAcquire = async (): Promise<{ lease: LeaseId; kv: KeyValue } | 'taken' | 'failed'> => {
    let granted: LeaseId | undefined;
    try {
      granted = await store.grantLease(ttlSeconds);
      const record: LeaderRecord = { holderIdentity: options.identity, leaseDurationSeconds: ttlSeconds, acquireTime: new Date(now()).toISOString() };
      const kv = await store.create(key, JSON.stringify(record), { lease: granted });
      return { lease: granted, kv };
    } catch (error) {
      if (granted !== undefined) await store.revokeLease(granted).catch(() => undefined);
      if (isStoreError(error, 'KeyExists')) return 'taken';
      logger.warn({ election: options.name, err: errorText(error) }, 'leader election: acquiring failed');
      return 'failed';
    }
  };

  /** Resolves when the key is gone (or may be: watch failed), after `retryMs`, or on stop. */
  const awaitRelease = async (): Promise<void> => {
    const done = new AbortController();
    const abort = (): void => done.abort();
    stopping.signal.addEventListener('abort', abort, { once: true });
    const cancel = schedule(abort, retryMs);
    try {
      const current = await store.get(key);
      if (current === undefined) return;
      for await (const event of store.watch(key, { fromRevision: current.modRevision, signal: done.signal })) {
        if (event.key === key && event.type === 'DELETED') return;
      }
    } catch (error) {
      if (!done.signal.aborted) {
        logger.debug({ election: options.name, err: errorText(error) }, 'leader election: watch failed');
        await sleepOrEvent(Math.min(retryMs, 1000), done.signal);
      }
    } finally {
      cancel();
      done.abort();
      stopping.signal.removeEventListener('abort', abort);
    }
  };

  /** Leads until the lease is lost or stop() is called. */
  const lead = async (held: { lease: LeaseId; kv: KeyValue }, started: () => void): Promise<void> => {
    const term = new AbortController();
    const lose = (why: string): void => {
      if (term.signal.aborted) return;
      logger.info({ election: options.name, identity: options.identity, why }, 'leader election: stopped leading');
      term.abort();
    };
    const onStop = (): void => lose('stopping');
    stopping.signal.addEventListener('abort', onStop, { once: true });
    lease = held.lease;
    leading = true;
    logger.info({ election: options.name, identity: options.identity }, 'leader election: started leading');
    const watching = (async () => {
      try {
        for await (const event of store.watch(key, { fromRevision: held.kv.modRevision, signal: term.signal })) {
          if (event.key !== key) continue;
          if (event.type === 'DELETED') return lose('the election key was deleted (lease expired or revoked)');
          if (event.type === 'MODIFIED' && event.kv.lease !== held.lease) return lose('the election key was taken over');
        }
        lose('the election watch ended');
      } catch (error) {
        lose(`the election watch failed: ${errorText(error)}`);
      }
    })();
    const renewing = (async () => {
      let renewed = now();
      while (!term.signal.aborted) {
        await sleepOrEvent(renewMs, term.signal);
        if (term.signal.aborted) return;
        try {
          await store.keepAliveLease(held.lease);
          renewed = now();
        } catch (error) {
          if (isStoreError(error, 'LeaseNotFound')) return lose('the lease expired');
          if (now() - renewed > ttlSeconds * 1000 - renewMs) return lose(`no renewal within the renew deadline: ${errorText(error)}`);
          logger.warn({ election: options.name, err: errorText(error) }, 'leader election: renewal failed; retrying');
        }
      }
    })();
    try {
      await options.onStartedLeading(term.signal);
    } catch (error) {
      logger.error({ election: options.name, err: errorText(error) }, 'leader election: starting to lead failed; giving up the lease');
      lose('starting failed');
    }
    started();
    await new Promise<void>((resolve) => (term.signal.aborted ? resolve() : term.signal.addEventListener('abort', () => resolve(), { once: true })));
    stopping.signal.removeEventListener('abort', onStop);
    leading = false;
    lease = undefined;
    await Promise.all([watching, renewing]);
    try {
      await options.onStoppedLeading();
    } finally {
      await store.revokeLease(held.lease).catch(() => undefined);
    }
  };

  let attempted: () => void = () => undefined;
  const firstAttempt = new Promise<void>((resolve) => (attempted = resolve));
  const campaign = (async () => {
    while (!stopping.signal.aborted) {
      const held = await tryAcquire();
      if (typeof held !== 'object') attempted();
      if (stopping.signal.aborted) {
        if (typeof held === 'object') await store.revokeLease(held.lease).catch(() => undefined);
        return;
      }
      if (held === 'taken') await awaitRelease();
      else if (held === 'failed') await sleepOrEvent(retryMs, stopping.signal);
      else await lead(held, attempted);
    }
  })()
    .catch((error: unknown) => logger.error({ election: options.name, err: errorText(error) }, 'leader election: campaign failed'))
    .finally(() => attempted());

  return {
    firstAttempt,
    get isLeader() {
      return leading && lease !== undefined;
    },
    stop: async () => {
      stopping.abort();
      await campaign;
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
