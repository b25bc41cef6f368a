import { Etcd3, type IKeyValue, type IRangeResponse, type Watcher } from 'etcd3';
import { checkListArguments, encodeContinue } from '../continue-token.js';
import { StoreError } from '../errors.js';
import { checkKey, checkPrefix, checkRevision, checkTtl, checkValue, prefixEnd } from '../keys.js';
import type {
  DeleteResult,
  KeyValue,
  LeaseId,
  ListOptions,
  ListResult,
  Revision,
  Store,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../types.js';
import { fromEtcdError } from './etcd-errors.js';
import { EtcdWatch, etcdToKeyValue, type EtcdWatchSource } from './etcd-watch.js';

export interface EtcdStoreOptions {
  /** Client URLs, e.g. `["http://127.0.0.1:2379"]`. */
  readonly endpoints: readonly string[];
  /** Milliseconds to wait for a connection. Default 5000. */
  readonly dialTimeoutMs?: number;
  /** Events a lagging watcher may queue before its etcd watch is paused. Default 1000. */
  readonly maxWatchQueue?: number;
}

/**
 * Where this store records the revision it compacted at, like kube-apiserver's
 * `compact_rev_key`: outside the "/" key space so no store key can collide with it.
 */
const COMPACT_KEY = Buffer.from('~edgeplane/compact-revision');
const LEASE_ID = /^[1-9][0-9]{0,18}$/;

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');
const headerRevision = (res: { header: { revision: string } }): Revision => Number(res.header.revision);

/**
 * The {@link Store} on etcd 3 (npm `etcd3`). Revisions are etcd's revisions, leases etcd's
 * leases, compare-and-swap etcd transactions on `mod_revision`.
 */
export class EtcdStore implements Store, EtcdWatchSource {
  private readonly client: Etcd3;
  private readonly watches = new Set<EtcdWatch>();
  private closed = false;

  constructor(private readonly options: EtcdStoreOptions) {
    this.client = new Etcd3({ hosts: [...options.endpoints], dialTimeout: options.dialTimeoutMs ?? 5000 });
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw StoreError.unavailable('etcd store is closed');
    try {
      return await fn();
    } catch (error) {
      throw fromEtcdError(error, what);
    }
  }

  async get(key: string): Promise<KeyValue | undefined> {
    checkKey(key);
    const res = await this.call('get', () => this.client.kv.range({ key: bytes(key) }));
    const kv = res.kvs[0];
    return kv === undefined ? undefined : etcdToKeyValue(kv);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const position = checkListArguments(prefix, options);
    const start = position === undefined ? prefix : position.lastKey + '\x00';
    const revision = position?.revision ?? options.revision;
    const limit = options.limit;
    const res: IRangeResponse = await this.call('list', () =>
      this.client.kv.range({
        key: bytes(start),
        range_end: bytes(prefixEnd(prefix)),
        ...(revision === undefined || revision === 0 ? {} : { revision }),
        ...(limit === undefined ? {} : { limit }),
      }),
    );
    const snapshot = revision ?? headerRevision(res);
    const items = res.kvs.map(etcdToKeyValue);
    const last = items[items.length - 1];
    return res.more && last !== undefined
      ? { items, revision: snapshot, continue: encodeContinue({ revision: snapshot, lastKey: last.key, prefix }) }
      : { items, revision: snapshot };
  }

  private async current(key: string): Promise<IKeyValue | undefined> {
    const res = await this.call('get', () => this.client.kv.range({ key: bytes(key) }));
    return res.kvs[0];
  }

  async create(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    checkKey(key);
    checkValue(key, value);
    const lease = checkedLease(options.lease);
    const res = await this.call('create', () =>
      this.client.kv.txn({
        compare: [{ key: bytes(key), target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: bytes(key), value: bytes(value), lease } }],
        failure: [],
      }),
    );
    if (!res.succeeded) throw StoreError.keyExists(key);
    const revision = headerRevision(res);
    return written(key, value, revision, revision, lease);
  }

  async update(key: string, value: string, expectedModRevision: Revision, options: WriteOptions = {}): Promise<KeyValue> {
    checkKey(key);
    checkValue(key, value);
    checkRevision(expectedModRevision, 'expectedModRevision');
    const lease = checkedLease(options.lease);
    const res = await this.call('update', () =>
      this.client.kv.txn({
        compare: [{ key: bytes(key), target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
        success: [{ request_put: { key: bytes(key), value: bytes(value), lease, prev_kv: true } }],
        failure: [{ request_range: { key: bytes(key) } }],
      }),
    );
    if (!res.succeeded) throw this.casFailure(key, expectedModRevision, res.responses[0]?.response_range.kvs[0]);
    const prev = res.responses[0]?.response_put.prev_kv;
    return written(key, value, Number(prev?.create_revision ?? headerRevision(res)), headerRevision(res), lease);
  }

  private casFailure(key: string, expected: Revision, actual: IKeyValue | undefined): StoreError {
    return actual === undefined ? StoreError.keyNotFound(key) : StoreError.conflict(key, expected, Number(actual.mod_revision));
  }

  async delete(key: string, expectedModRevision?: Revision): Promise<DeleteResult> {
    checkKey(key);
    if (expectedModRevision !== undefined) checkRevision(expectedModRevision, 'expectedModRevision');
    const compare =
      expectedModRevision === undefined
        ? { key: bytes(key), target: 'Create' as const, result: 'Greater' as const, create_revision: 0 }
        : { key: bytes(key), target: 'Mod' as const, result: 'Equal' as const, mod_revision: expectedModRevision };
    const res = await this.call('delete', () =>
      this.client.kv.txn({
        compare: [compare],
        success: [{ request_delete_range: { key: bytes(key), prev_kv: true } }],
        failure: [{ request_range: { key: bytes(key) } }],
      }),
    );
    if (!res.succeeded) throw this.casFailure(key, expectedModRevision ?? 0, res.responses[0]?.response_range.kvs[0]);
    const prev = res.responses[0]?.response_delete_range.prev_kvs[0];
    if (prev === undefined) throw StoreError.keyNotFound(key);
    return { revision: headerRevision(res), prev: etcdToKeyValue(prev) };
  }

  watch(prefix: string, options: WatchOptions = {}): AsyncIterable<WatchEvent> {
    checkPrefix(prefix);
    if (options.fromRevision !== undefined) checkRevision(options.fromRevision, 'watch fromRevision');
    if (this.closed) throw StoreError.unavailable('etcd store is closed');
    const watch = new EtcdWatch(this, prefix, options.fromRevision, this.options.maxWatchQueue ?? 1000);
    this.watches.add(watch);
    return watch.endOn(options.signal);
  }

  openWatcher(prefix: string, startRevision: Revision): Promise<Watcher> {
    return this.client.watch().prefix(prefix).startRevision(String(startRevision)).withPreviousKV().create();
  }

  forget(watch: EtcdWatch): void {
    this.watches.delete(watch);
  }

  async currentRevision(): Promise<Revision> {
    const res = await this.call('currentRevision', () => this.client.kv.range({ key: COMPACT_KEY, count_only: true }));
    return headerRevision(res);
  }

  async compactedRevision(): Promise<Revision> {
    const kv = await this.current(COMPACT_KEY.toString());
    return kv === undefined ? 0 : Number(kv.value.toString());
  }

  async compact(revision: Revision): Promise<void> {
    checkRevision(revision, 'compact revision');
    const current = await this.currentRevision();
    if (revision > current) throw StoreError.invalid(`cannot compact at ${revision}: current revision is ${current}`);
    const existing = await this.current(COMPACT_KEY.toString());
    const recorded = existing === undefined ? 0 : Number(existing.value.toString());
    if (revision <= recorded) return;
    // Record the mark first (compare-and-swap, so racing compactors agree), then compact.
    const res = await this.call('compact', () =>
      this.client.kv.txn({
        compare: [{ key: COMPACT_KEY, target: 'Version', result: 'Equal', version: existing?.version ?? 0 }],
        success: [{ request_put: { key: COMPACT_KEY, value: bytes(String(revision)) } }],
        failure: [],
      }),
    );
    if (!res.succeeded) return this.compact(revision);
    try {
      await this.client.kv.compact({ revision, physical: true });
    } catch (error) {
      const mapped = fromEtcdError(error, 'compact');
      if (mapped.code !== 'Compacted') throw mapped; // already compacted past it by etcd itself
    }
  }

  async grantLease(ttlSeconds: number): Promise<LeaseId> {
    checkTtl(ttlSeconds);
    const res = await this.call('grantLease', () => this.client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 }));
    if (res.error !== '' && res.error !== undefined) throw StoreError.unavailable(`grantLease: etcd: ${res.error}`);
    return res.ID;
  }

  async keepAliveLease(lease: LeaseId): Promise<number> {
    const id = checkedLease(lease);
    const ttl = await this.call('keepAliveLease', async () => {
      const stream = await this.client.leaseClient.leaseKeepAlive();
      try {
        const response = await new Promise<{ TTL: string }>((resolve, reject) => {
          stream.on('data', resolve);
          stream.on('error', reject);
          stream.write({ ID: id });
        });
        return Number(response.TTL);
      } finally {
        stream.end();
      }
    });
    if (ttl <= 0) throw StoreError.leaseNotFound(id);
    return ttl;
  }

  async revokeLease(lease: LeaseId): Promise<void> {
    const id = checkedLease(lease);
    await this.call('revokeLease', () => this.client.leaseClient.leaseRevoke({ ID: id }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const watch of [...this.watches]) watch.finish();
    this.client.close();
    return Promise.resolve();
  }
}

function checkedLease(lease: LeaseId | undefined): string {
  if (lease === undefined) return '0';
  if (typeof lease !== 'string' || !LEASE_ID.test(lease)) throw StoreError.invalid(`lease id ${JSON.stringify(lease)} is not valid`);
  return lease;
}

function written(key: string, value: string, createRevision: Revision, modRevision: Revision, lease: string): KeyValue {
  const kv = { key, value, createRevision, modRevision };
  return lease === '0' ? kv : { ...kv, lease };
}
