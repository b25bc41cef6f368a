import type { IEvent, IKeyValue, IWatchResponse, Watcher } from 'etcd3';
import { StoreError } from '../errors.js';
import type { KeyValue, Revision, WatchEvent } from '../types.js';
import { WatchIterator } from '../watch-iterator.js';
import { fromEtcdError } from './etcd-errors.js';

export function etcdToKeyValue(kv: IKeyValue): KeyValue {
  const base = {
    key: kv.key.toString('utf8'),
    value: kv.value.toString('utf8'),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
  return kv.lease === '0' || kv.lease === '' ? base : { ...base, lease: kv.lease };
}

/** What an etcd watch needs from its store. */
export interface EtcdWatchSource {
  currentRevision(): Promise<Revision>;
  compactedRevision(): Promise<Revision>;
  /** Opens an etcd watcher of the prefix from `startRevision` (inclusive), with previous values. */
  openWatcher(prefix: string, startRevision: Revision): Promise<Watcher>;
  forget(watch: EtcdWatch): void;
}

/**
 * One watch over etcd as an async iterator. etcd pushes; when the consumer lags `maxQueue`
 * events behind, the etcd watcher is cancelled and re-opened from the last queued revision
 * once the consumer has caught up, so a slow reader costs no unbounded memory.
 */
export class EtcdWatch extends WatchIterator {
  private watcher: Watcher | undefined;
  private starting = false;

  constructor(
    private readonly source: EtcdWatchSource,
    private readonly prefix: string,
    private position: Revision | undefined,
    private readonly maxQueue: number,
  ) {
    super();
    this.start();
  }

  private start(): void {
    this.starting = true;
    void this.open().finally(() => {
      this.starting = false;
      this.signal();
    });
  }

  private async open(): Promise<void> {
    try {
      if (this.position === undefined) {
        this.position = await this.source.currentRevision();
      } else {
        const compacted = await this.source.compactedRevision();
        if (this.position < compacted) throw StoreError.compacted(this.position, compacted);
      }
      const watcher = await this.source.openWatcher(this.prefix, this.position + 1);
      if (this.ended) {
        await watcher.cancel();
        return;
      }
      watcher.on('data', (res: IWatchResponse) => this.onData(watcher, res));
      watcher.on('error', (error: Error) => void this.onError(watcher, error));
      this.watcher = watcher;
    } catch (error) {
      this.fail(fromEtcdError(error, 'watch'));
    }
  }

  private onData(watcher: Watcher, res: IWatchResponse): void {
    if (watcher !== this.watcher) return;
    for (const event of res.events) {
      const revision = Number(event.kv.mod_revision);
      if (this.position !== undefined && revision <= this.position) continue;
      this.position = revision;
      this.push(toEvent(event.type, event.kv, event.prev_kv));
    }
    if (this.queued >= this.maxQueue) this.pause();
  }

  private async onError(watcher: Watcher, error: Error): Promise<void> {
    if (watcher !== this.watcher) return;
    this.watcher = undefined;
    // etcd cancels a watch whose start was compacted; etcd 3.4 gives no reason text for it.
    if (/Watcher canceled: *$/.test(error.message) || error.message.includes('compacted')) {
      const compacted = await this.source.compactedRevision().catch(() => undefined);
      this.fail(new StoreError('Compacted', `watch from revision ${this.position ?? 0} was compacted by etcd`, compacted === undefined ? {} : { compactedRevision: compacted }));
      return;
    }
    this.fail(fromEtcdError(error, 'watch'));
  }

  private pause(): void {
    const watcher = this.watcher;
    this.watcher = undefined;
    void watcher?.cancel().catch(() => undefined);
  }

  protected refill(): boolean {
    if (this.watcher === undefined && !this.starting) this.start();
    return true; // events, or the outcome of starting, will signal
  }

  protected release(): void {
    this.pause();
    this.source.forget(this);
  }
}

function toEvent(type: IEvent['type'], kv: IKeyValue, prevKv: IKeyValue | undefined): WatchEvent {
  const key = kv.key.toString('utf8');
  const revision = Number(kv.mod_revision);
  const prev = prevKv === undefined || prevKv === null ? undefined : etcdToKeyValue(prevKv);
  if (type === 'Delete') {
    return {
      type: 'DELETED',
      key,
      revision,
      prev: prev ?? { key, value: '', createRevision: Number(kv.create_revision), modRevision: revision },
    };
  }
  const current = etcdToKeyValue(kv);
  if (kv.create_revision === kv.mod_revision || prev === undefined) return { type: 'ADDED', key, revision, kv: current };
  return { type: 'MODIFIED', key, revision, kv: current, prev };
}
