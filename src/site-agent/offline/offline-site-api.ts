import type { Timers } from '../../common/timers.js';
import type { Logger } from '../../observability/logger.js';
import type { BootstrapToken, PodRef, PodWatchEvent } from '../../site-api/site-api-types.js';
import type { PlacedObjectKind, PlacedObjects, SiteApiClient } from '../site-api-client.js';
import { SiteApiError } from '../site-api-error.js';
import { PodListMirror, type PodListSnapshot } from './pod-list-mirror.js';
import { SealedStateFiles } from './sealed-state-files.js';

const KINDS: readonly PlacedObjectKind[] = ['configmaps', 'secrets', 'persistentvolumeclaims', 'services', 'endpoints'];
/** How long a first answer may take before the persisted state is served instead (default). */
const DEFAULT_ANSWER_WITHIN_MS = 5000;
const PODS = 'pods';
const TOKENS = 'identity-tokens';
const objectsFile = (kind: PlacedObjectKind): string => `objects-${kind}`;

/** The reads the offline cache stands in front of (a {@link SiteApiClient}'s). */
export type SiteApiReads = Pick<SiteApiClient, 'watchPods' | 'placedObjects' | 'podIdentityToken'>;

/** A failure that says nothing about the request: no answer, or the control plane could not take it for now. */
function unreachable(error: unknown): boolean {
  return !(error instanceof SiteApiError) || error.status >= 500 || error.status === 429;
}

type Raced<T> = { readonly value: T } | { readonly error: unknown } | { readonly late: true };

/**
 * The site's cache of what the control plane last sent (OpenYurt's YurtHub, KubeEdge's edge
 * metadata store), at the site API client's boundary: the pod list the watch delivered with its
 * resourceVersion, and the placed objects of each kind, persisted in `dir` sealed under the site
 * key (SealedStateFiles: 0700/0600, AES-256-GCM, coalesced writes). It answers for the control
 * plane when that does not answer (no connection, a 5xx, nothing within `answerWithinMs`):
 * - the pod watch's first attempt replays the persisted pods as ADDED events, then ends with an
 *   expired-version ERROR, so the watch loop relists as soon as the control plane answers (its
 *   relist keeps the pods it brings back with the same uid, and drops the rest);
 * - a list of placed objects (not a long poll) gets the persisted list of its kind;
 * - a pod's sidecar gets the bootstrap token last minted for that pod (uid): a sidecar that holds
 *   an identity in its pod's volume resumes it and only reads the token for the CA pin it
 *   carries; one without an identity waits for the control plane like any new pod.
 * Everything else goes to the control plane as it is.
 */
export class OfflineSiteApi implements SiteApiReads {
  private readonly files: SealedStateFiles;
  private readonly mirror: PodListMirror;
  private readonly objects = new Map<PlacedObjectKind, { readonly list: PlacedObjects; readonly items: string }>();
  /** The persisted pods were replayed, or the live watch answered: they are never replayed again. */
  private podsDecided = false;
  /** The kinds being served from the persisted state (said once per outage). */
  private readonly serving = new Set<PlacedObjectKind>();
  private readonly answerWithinMs: number;
  /** The last bootstrap token minted for each pod (by uid), kept for the pods of the persisted list. */
  private readonly tokens: Map<string, BootstrapToken>;

  constructor(
    private readonly live: SiteApiReads,
    dir: string,
    private readonly timers: Timers,
    private readonly logger: Logger,
    options: { readonly answerWithinMs?: number; readonly writeDelayMs?: number } = {},
  ) {
    this.answerWithinMs = options.answerWithinMs ?? DEFAULT_ANSWER_WITHIN_MS;
    this.files = new SealedStateFiles(dir, timers, logger, options.writeDelayMs);
    this.mirror = new PodListMirror(this.files.read<PodListSnapshot>(PODS));
    this.tokens = new Map(Object.entries(this.files.read<Record<string, BootstrapToken>>(TOKENS) ?? {}));
    for (const kind of KINDS) {
      const list = this.files.read<PlacedObjects>(objectsFile(kind));
      if (list !== undefined) this.objects.set(kind, { list, items: JSON.stringify(list.items) });
    }
  }

  /** What was restored from disk: the persisted pods and the kinds of placed objects. */
  restored(): { readonly pods: number; readonly kinds: readonly PlacedObjectKind[] } {
    return { pods: this.mirror.snapshot()?.pods.length ?? 0, kinds: [...this.objects.keys()] };
  }

  async watchPods(resourceVersion: string | undefined, signal: AbortSignal): Promise<AsyncIterable<PodWatchEvent>> {
    const persisted = this.podsDecided ? undefined : this.mirror.snapshot();
    if (persisted === undefined) {
      const events = await this.live.watchPods(resourceVersion, signal);
      this.podsDecided = true;
      return this.follow(events, resourceVersion === undefined);
    }
    const attempt = new AbortController();
    const abort = (): void => attempt.abort();
    signal.addEventListener('abort', abort, { once: true });
    const outcome = await this.race(this.live.watchPods(resourceVersion, attempt.signal));
    if ('value' in outcome) {
      this.podsDecided = true;
      return this.follow(outcome.value, resourceVersion === undefined);
    }
    signal.removeEventListener('abort', abort);
    attempt.abort();
    if ('error' in outcome && !unreachable(outcome.error)) throw outcome.error;
    this.podsDecided = true;
    const why = 'error' in outcome ? String(outcome.error instanceof Error ? outcome.error.message : outcome.error) : `no answer within ${this.answerWithinMs} ms`;
    this.logger.warn({ pods: persisted.pods.length, resourceVersion: persisted.resourceVersion, why }, 'the control plane is unreachable: running the persisted pods');
    return replay(persisted);
  }

  async placedObjects(kind: PlacedObjectKind, wait?: Parameters<SiteApiClient['placedObjects']>[1]): Promise<PlacedObjects> {
    const persisted = this.objects.get(kind);
    if (wait !== undefined || persisted === undefined) return this.keep(kind, await this.live.placedObjects(kind, wait));
    const outcome = await this.race(this.live.placedObjects(kind).then((list) => this.keep(kind, list)));
    if ('value' in outcome) return outcome.value;
    if ('error' in outcome && !unreachable(outcome.error)) throw outcome.error;
    if (!this.serving.has(kind)) this.logger.warn({ kind, items: persisted.list.items.length }, 'the control plane is unreachable: serving the persisted placed objects');
    this.serving.add(kind);
    return persisted.list;
  }

  async podIdentityToken(pod: PodRef): Promise<BootstrapToken> {
    const remembered = this.tokens.get(pod.uid);
    const live = this.live.podIdentityToken(pod).then((token) => {
      this.tokens.set(pod.uid, token);
      this.files.put(TOKENS, () => this.tokensOfListedPods());
      return token;
    });
    if (remembered === undefined) return live;
    const outcome = await this.race(live);
    if ('value' in outcome) return outcome.value;
    if ('error' in outcome && !unreachable(outcome.error)) throw outcome.error;
    this.logger.warn({ pod: pod.name, uid: pod.uid }, 'the control plane is unreachable: the pod\'s sidecar gets the bootstrap token minted for it last');
    return remembered;
  }

  /** Writes what changed and stops writing. */
  close(): Promise<void> {
    return this.files.close();
  }

  private keep(kind: PlacedObjectKind, list: PlacedObjects): PlacedObjects {
    if (this.serving.delete(kind)) this.logger.info({ kind }, 'the control plane answers again: its placed objects replace the persisted ones');
    const items = JSON.stringify(list.items);
    const changed = this.objects.get(kind)?.items !== items;
    this.objects.set(kind, { list, items });
    if (changed) this.files.put(objectsFile(kind), () => this.objects.get(kind)?.list);
    return list;
  }

  /** The remembered tokens of the pods in the list (those of pods gone are forgotten). */
  private tokensOfListedPods(): Record<string, BootstrapToken> {
    const listed = new Set(this.mirror.snapshot()?.pods.map((entry) => entry.pod.metadata.uid ?? ''));
    for (const uid of this.tokens.keys()) if (listed.size > 0 && !listed.has(uid)) this.tokens.delete(uid);
    return Object.fromEntries(this.tokens);
  }

  private async *follow(events: AsyncIterable<PodWatchEvent>, relist: boolean): AsyncGenerator<PodWatchEvent> {
    if (relist) this.mirror.beginList();
    for await (const event of events) {
      if (this.mirror.apply(event)) this.files.put(PODS, () => this.mirror.snapshot());
      yield event;
    }
  }

  /** The answer, or that there was none within `answerWithinMs` (the attempt goes on; its answer is dropped). */
  private async race<T>(attempt: Promise<T>): Promise<Raced<T>> {
    let cancel: (() => void) | undefined;
    const late = new Promise<Raced<T>>((resolve) => (cancel = this.timers.schedule(() => resolve({ late: true }), this.answerWithinMs)));
    const answered = attempt.then(
      (value): Raced<T> => ({ value }),
      (error: unknown): Raced<T> => ({ error }),
    );
    try {
      return await Promise.race([answered, late]);
    } finally {
      cancel?.();
    }
  }
}

/** The persisted pods as the start of a list, then an expired-version ERROR: the watch loop relists from the control plane. */
async function* replay(persisted: PodListSnapshot): AsyncGenerator<PodWatchEvent> {
  await Promise.resolve();
  for (const { cluster, pod } of persisted.pods) yield { type: 'ADDED', cluster, object: pod };
  const status = { kind: 'Status', code: 410, reason: 'Expired', message: `served from the state persisted at resourceVersion ${persisted.resourceVersion}: relisting` };
  yield { type: 'ERROR', object: status as unknown as PodWatchEvent['object'] };
}
