import { StatusError, type ResourceRef, type StatusCause } from '../apimachinery/errors/status-error.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../apimachinery/validation/object-meta.js';
import type { Clock } from '../common/clock.js';
import { isStoreError } from '../store/errors.js';
import type { KeyValue, Store } from '../store/types.js';
import type { WatchCache } from '../store/watch-cache.js';
import { cloneObject, jsonEqual, type KubeObject } from '../apimachinery/object.js';
import { planDeletion, shouldRemoveAfterUpdate, type DeleteRequest } from './deletion.js';
import { readConsistentFrom } from './consistent-read.js';
import type { FieldManagement } from './field-management.js';
import { clusterPrefix, objectKey } from './keys.js';
import { listObjects, type ListQuery, type ListResponse } from './list.js';
import type { ObjectCodec } from './object-codec.js';
import { storeErrorToStatus } from './store-errors.js';
import type { AllocationContext, Strategy, StrategyContext } from './strategy.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import { metav1Time } from '../apimachinery/meta-time.js';

/** Who asks and how: the cluster, dry-run, and the field manager recorded in managedFields. */
export interface RequestScope {
  readonly cluster: ClusterRef;
  readonly dryRun: boolean;
  readonly fieldManager: string;
}

export interface GenericStoreDependencies {
  readonly store: Store;
  readonly cache: WatchCache;
  readonly strategy: Strategy;
  readonly codec: ObjectCodec;
  readonly clock: Clock;
  readonly fieldManagement: FieldManagement;
  readonly newUid: () => string;
  /** Five random characters of [a-z0-9] minus vowels-like lookalikes, for generateName. */
  readonly randomSuffix: () => string;
  /** Ends a consistent read's wait for the watch cache (default 3 s); then the store is read. */
  readonly cacheWaitLimit?: () => AbortSignal;
}

/** How an update computes the new object from the current one (PUT: a constant; PATCH: the patch). */
export type UpdateFunction = (current: KubeObject) => KubeObject | Promise<KubeObject>;

export interface UpdateOptions {
  /**
   * `status`: write through the status strategy (`/status`). `scale`: a `/scale` write, through
   * the main strategy, that leaves managedFields as they are (kube 1.17 tracks them on the Scale).
   * `binding`: the platform's binding write through the strategy's `binding` rules (pods'
   * `spec.nodeName`); no HTTP route passes it.
   */
  readonly subresource?: 'status' | 'scale' | 'binding';
  /** Retry on a write conflict (a PATCH without a resourceVersion); else the conflict is the answer. */
  readonly retryOnConflict?: boolean;
  /** A server-side apply: the apply machinery set managedFields, so no Update entry is recorded (kube's applyPatcher). */
  readonly applied?: boolean;
}

export interface CreateOptions {
  /** A server-side apply of a new object: managedFields are the apply's own. */
  readonly applied?: boolean;
}

export interface DeleteResult {
  readonly object: KubeObject;
  /** False when the object stays, marked for deletion (finalizers or graceful deletion pending). */
  readonly removed: boolean;
}

const MAX_UPDATE_ATTEMPTS = 10;

/**
 * One resource's storage with kube-apiserver's generic registry semantics
 * (registry/generic/registry/store.go): system metadata, the strategy's prepare / validate
 * steps, compare-and-swap writes, finalizers and graceful deletion, dry-run that never
 * persists. Reads of single objects are consistent reads served by the resource's watch cache
 * once it has caught up with the store (kube 1.31's rule; the store otherwise), and so are
 * consistent lists without a limit; paged lists go to the store; lists at resourceVersion "0"
 * and every watch are served by the watch cache.
 */
export class GenericStore {
  readonly ref: ResourceRef;

  constructor(private readonly deps: GenericStoreDependencies) {
    this.ref = { resource: deps.strategy.resource.resource, group: deps.strategy.resource.group };
  }

  get strategy(): Strategy {
    return this.deps.strategy;
  }

  get cache(): WatchCache {
    return this.deps.cache;
  }

  get codec(): ObjectCodec {
    return this.deps.codec;
  }

  key(cluster: ClusterRef, name: string): string {
    return objectKey(this.deps.strategy.resource, cluster, name);
  }

  prefix(cluster: ClusterRef): string {
    return clusterPrefix(this.deps.strategy.resource, cluster);
  }

  /** The object as it is now (a consistent read); the caller owns it. */
  async get(cluster: ClusterRef, name: string): Promise<KubeObject> {
    return this.deps.codec.decodeOnce((await this.current(cluster, name)).kv);
  }

  /**
   * The object as it is now, as JSON (UTF-8): the bytes `JSON.stringify(await get(…))` would
   * give, built once per stored value while the watch cache holds it. Shared: do not modify.
   */
  async getJson(cluster: ClusterRef, name: string): Promise<Buffer> {
    const { kv, cached } = await this.current(cluster, name);
    return cached ? this.deps.codec.json(kv) : Buffer.from(JSON.stringify(this.deps.codec.decodeOnce(kv)));
  }

  /** The stored value of the object as it is now: a consistent read, from the watch cache when it has caught up. */
  private async current(cluster: ClusterRef, name: string): Promise<{ kv: KeyValue; cached: boolean }> {
    let found;
    try {
      found = await readConsistentFrom({ store: this.deps.store, cache: this.deps.cache, waitLimit: this.deps.cacheWaitLimit }, this.key(cluster, name));
    } catch (error) {
      throw storeErrorToStatus(error, this.ref, name);
    }
    if (found.kv === undefined) throw StatusError.notFound(this.ref, name);
    return { kv: found.kv, cached: found.cached };
  }

  private async read(cluster: ClusterRef, name: string): Promise<KeyValue | undefined> {
    try {
      return await this.deps.store.get(this.key(cluster, name));
    } catch (error) {
      throw storeErrorToStatus(error, this.ref, name);
    }
  }

  list(cluster: ClusterRef, query: ListQuery): Promise<ListResponse> {
    const { store, cache, codec, strategy, cacheWaitLimit } = this.deps;
    return listObjects({ store, cache, codec, strategy, prefix: this.prefix(cluster), ref: this.ref, waitLimit: cacheWaitLimit }, query);
  }

  private context(cluster: ClusterRef): StrategyContext {
    return { cluster, now: metav1Time(this.deps.clock.now()) };
  }

  /** POST: `object` is decoded and defaulted; its namespace already matches the request. */
  async create(scope: RequestScope, input: KubeObject, options: CreateOptions = {}): Promise<KubeObject> {
    const { strategy, codec } = this.deps;
    const context = this.context(scope.cluster);
    const object = cloneObject(input);
    this.fillSystemMetadata(object, scope.cluster, context.now);
    strategy.prepareForCreate(object);
    this.checkValid(object, [...validateObjectMeta(object.metadata, this.metaRules()), ...strategy.validate(object, context)]);
    if (options.applied !== true) this.deps.fieldManagement.recordUpdate({ old: undefined, updated: object, manager: scope.fieldManager, now: context.now });
    const name = object.metadata.name ?? '';
    const undo = await this.allocate(scope, (c) => strategy.allocation?.beforeCreate(object, c));
    if (scope.dryRun) {
      await undo();
      return object;
    }
    try {
      const key = this.key(scope.cluster, name);
      const kv = await this.deps.store.create(key, codec.encode(object, key));
      return codec.decodeOnce(kv);
    } catch (error) {
      await undo();
      throw storeErrorToStatus(error, this.ref, name);
    }
  }

  private fillSystemMetadata(object: KubeObject, cluster: ClusterRef, now: string): void {
    const meta = object.metadata;
    if ((meta.name === undefined || meta.name === '') && meta.generateName !== undefined && meta.generateName !== '') {
      meta.name = `${meta.generateName}${this.deps.randomSuffix()}`;
    }
    if (this.deps.strategy.resource.namespaced) meta.namespace = cluster.namespace;
    else delete meta.namespace;
    meta.uid = this.deps.newUid();
    meta.creationTimestamp = now;
    delete meta.resourceVersion;
    delete meta.selfLink;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.generation;
  }

  private metaRules(): { namespaced: boolean; nameRule: Strategy['nameRule'] } {
    return { namespaced: this.deps.strategy.resource.namespaced, nameRule: this.deps.strategy.nameRule };
  }

  private checkValid(object: KubeObject, causes: StatusCause[]): void {
    if (causes.length > 0) {
      const { kind, group } = this.deps.strategy.resource;
      throw StatusError.invalid({ kind, group }, object.metadata.name ?? object.metadata.generateName ?? '', causes);
    }
  }

  private async allocate(scope: RequestScope, step: (context: AllocationContext) => Promise<() => Promise<void>> | undefined): Promise<() => Promise<void>> {
    const undo = step({ ...this.context(scope.cluster), dryRun: scope.dryRun, store: this.deps.store });
    return (await undo) ?? (async () => {});
  }

  /**
   * PUT, PATCH and `/status` writes: read, compute, check, compare-and-swap; a write that
   * changes nothing is not made. Conflicts are retried only when `retryOnConflict`.
   */
  async update(scope: RequestScope, name: string, compute: UpdateFunction, options: UpdateOptions = {}): Promise<KubeObject> {
    for (let attempt = 1; ; attempt++) {
      const kv = await this.read(scope.cluster, name);
      if (kv === undefined) throw StatusError.notFound(this.ref, name);
      const old = this.deps.codec.decodeOnce(kv);
      try {
        return await this.updateFrom(scope, kv, old, await compute(cloneObject(old)), options);
      } catch (error) {
        if (!(options.retryOnConflict === true && isStoreError(error, 'Conflict') && attempt < MAX_UPDATE_ATTEMPTS)) throw storeErrorToStatus(error, this.ref, name);
      }
    }
  }

  private async updateFrom(scope: RequestScope, kv: KeyValue, old: KubeObject, input: KubeObject, options: UpdateOptions): Promise<KubeObject> {
    const { strategy, codec } = this.deps;
    const name = old.metadata.name ?? '';
    const requested = input.metadata.resourceVersion;
    if (requested !== undefined && requested !== '' && requested !== old.metadata.resourceVersion) throw StatusError.modified(this.ref, name);
    if (input.metadata.uid !== undefined && input.metadata.uid !== '' && input.metadata.uid !== old.metadata.uid) {
      throw StatusError.conflict(this.ref, name, `Precondition failed: UID in precondition: ${input.metadata.uid}, UID in object meta: ${old.metadata.uid}`);
    }
    const context = this.context(scope.cluster);
    const object = cloneObject(input);
    this.carrySystemMetadata(object, old, scope.cluster);
    object.metadata.resourceVersion = old.metadata.resourceVersion;
    let causes: StatusCause[];
    const subStrategy = options.subresource === 'status' ? strategy.status : options.subresource === 'binding' ? strategy.binding : undefined;
    if (options.subresource === 'binding' && subStrategy === undefined) throw StatusError.methodNotAllowed('create', this.ref);
    if (subStrategy !== undefined) {
      subStrategy.prepareForUpdate(object, old);
      causes = [...validateObjectMetaUpdate(object.metadata, old.metadata, this.metaRules()), ...subStrategy.validateUpdate(object, old, context)];
    } else {
      strategy.prepareForUpdate(object, old);
      causes = [...validateObjectMetaUpdate(object.metadata, old.metadata, this.metaRules()), ...strategy.validateUpdate(object, old, context)];
    }
    this.checkValid(object, causes);
    if (options.applied !== true) this.deps.fieldManagement.recordUpdate({ old, updated: object, manager: scope.fieldManager, subresource: options.subresource, now: context.now });
    if (jsonEqual(object, old)) return old;
    const undo = options.subresource === undefined ? await this.allocate(scope, (c) => strategy.allocation?.beforeUpdate(object, old, c)) : async () => {};
    if (scope.dryRun) {
      await undo();
      return object;
    }
    try {
      if (shouldRemoveAfterUpdate(object)) {
        const { revision } = await this.deps.store.delete(kv.key, kv.modRevision);
        await strategy.allocation?.afterDelete(old, { ...context, dryRun: false, store: this.deps.store });
        return { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
      }
      return codec.decodeOnce(await this.deps.store.update(kv.key, codec.encode(object, kv.key), kv.modRevision));
    } catch (error) {
      await undo();
      throw error;
    }
  }

  /** What a request cannot change: kube's BeforeUpdate keeps these from the stored object. */
  private carrySystemMetadata(object: KubeObject, old: KubeObject, cluster: ClusterRef): void {
    const meta = object.metadata;
    const was = old.metadata;
    if (this.deps.strategy.resource.namespaced) meta.namespace = cluster.namespace;
    if (meta.uid === undefined || meta.uid === '') meta.uid = was.uid;
    if (was.creationTimestamp !== undefined) meta.creationTimestamp = was.creationTimestamp;
    if (was.generation !== undefined) meta.generation = was.generation;
    else delete meta.generation;
    if (was.deletionTimestamp !== undefined) meta.deletionTimestamp = was.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (was.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = was.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
  }

  /** DELETE one object: removed now, or marked while finalizers or a grace period are pending. */
  async delete(scope: RequestScope, name: string, request: DeleteRequest): Promise<DeleteResult> {
    for (let attempt = 1; ; attempt++) {
      const kv = await this.read(scope.cluster, name);
      if (kv === undefined) throw StatusError.notFound(this.ref, name);
      try {
        return await this.deleteFrom(scope, kv, request);
      } catch (error) {
        const preconditioned = request.preconditions?.resourceVersion !== undefined;
        if (preconditioned || !isStoreError(error, 'Conflict') || attempt >= MAX_UPDATE_ATTEMPTS) throw storeErrorToStatus(error, this.ref, name);
      }
    }
  }

  private async deleteFrom(scope: RequestScope, kv: KeyValue, request: DeleteRequest): Promise<DeleteResult> {
    const { strategy, codec } = this.deps;
    const current = codec.decodeOnce(kv);
    const name = current.metadata.name ?? '';
    const { uid, resourceVersion } = request.preconditions ?? {};
    if (uid !== undefined && uid !== current.metadata.uid) {
      throw StatusError.conflict(this.ref, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (resourceVersion !== undefined && resourceVersion !== current.metadata.resourceVersion) {
      throw StatusError.conflict(this.ref, name, `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`);
    }
    const plan = planDeletion(current, request, strategy, this.deps.clock.now());
    switch (plan.action) {
      case 'pending':
        return { object: current, removed: false };
      case 'mark': {
        if (scope.dryRun) return { object: plan.object, removed: false };
        return { object: codec.decodeOnce(await this.deps.store.update(kv.key, codec.encode(plan.object, kv.key), kv.modRevision)), removed: false };
      }
      case 'remove': {
        if (scope.dryRun) return { object: current, removed: true };
        const { revision } = await this.deps.store.delete(kv.key, kv.modRevision);
        await strategy.allocation?.afterDelete(current, { ...this.context(scope.cluster), dryRun: false, store: this.deps.store });
        return { object: { ...current, metadata: { ...current.metadata, resourceVersion: String(revision) } }, removed: true };
      }
    }
  }
}
