import { randomInt, randomUUID } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import { type WatchCacheMetrics } from '../observability/metrics.js';
import { fanOutPassRecorder } from '../store/fan-out-pass-recorder.js';
import { NO_FIELD_MANAGEMENT, type FieldManagement } from '../registry/field-management.js';
import { GenericStore } from '../registry/generic-store.js';
import { clusterPrefix, resourcePrefix } from '../registry/keys.js';
import { ObjectCodec } from '../registry/object-codec.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { Clock } from '../common/clock.js';
import type { Store } from '../store/types.js';
import { WatchCache } from '../store/watch-cache.js';
import { serviceIpKeyPrefix } from './allocation/service-ip-allocation.js';
import { strategyFor, strategyKey } from './kinds/index.js';
import { RESOURCES } from './resources.js';
import { type ResourceType } from '../apimachinery/resource-type.js';
import type { ValueTransformer } from '../common/envelope-encryption.js';
import { namespaceMetadataPrefix } from './namespace-metadata.js';

export interface VirtualClusterStorageOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly fieldManagement?: FieldManagement;
  /** Events a watch cache keeps for watches resuming from the past (default 1000). */
  readonly watchHistory?: number;
  /** Where the watch caches' fan-out is measured. */
  readonly metrics?: WatchCacheMetrics;
  /**
   * How the resources of {@link ENCRYPTED_RESOURCES} are kept at rest (the server's envelope
   * encryption under the KEK); without it they are stored as JSON like every other resource.
   */
  readonly encryption?: ValueTransformer;
}

/** The resources whose objects are encrypted at rest (kube's EncryptionConfiguration `resources: [secrets]`). */
export const ENCRYPTED_RESOURCES: ReadonlyArray<Pick<ResourceType, 'group' | 'resource'>> = [{ group: '', resource: 'secrets' }];

/** kube's generateName alphabet (no vowels, no lookalikes): five characters of it. */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomNameSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return suffix;
}

/** Resources the platform computes rather than stores: a cluster's one namespace. */
const SYNTHESIZED_RESOURCES: ReadonlySet<string> = new Set(['/namespaces']);

/**
 * The storage of every virtual cluster: one GenericStore and one watch cache per resource,
 * shared by all clusters of all tenants (the cluster is part of each key).
 */
export class VirtualClusterStorage {
  private readonly stores = new Map<string, GenericStore>();

  constructor(private readonly options: VirtualClusterStorageOptions) {
    const codec = new ObjectCodec();
    // Only these pay for encryption; every other resource shares the plain codec.
    const encrypting = options.encryption === undefined ? undefined : new ObjectCodec({ transformer: options.encryption });
    const encrypted = new Set(ENCRYPTED_RESOURCES.map(strategyKey));
    for (const resource of RESOURCES) {
      if (SYNTHESIZED_RESOURCES.has(strategyKey(resource))) continue;
      const cache = new WatchCache(options.store, resourcePrefix(resource), {
        history: options.watchHistory,
        logger: options.logger,
        ...(options.metrics === undefined ? {} : { onPass: fanOutPassRecorder(options.metrics, { group: resource.group, resource: resource.resource }) }),
      });
      this.stores.set(
        strategyKey(resource),
        new GenericStore({
          store: options.store,
          cache,
          strategy: strategyFor(resource),
          codec: encrypting !== undefined && encrypted.has(strategyKey(resource)) ? encrypting : codec,
          clock: options.clock,
          fieldManagement: options.fieldManagement ?? NO_FIELD_MANAGEMENT,
          newUid: randomUUID,
          randomSuffix: randomNameSuffix,
        }),
      );
    }
  }

  /** Fills every watch cache; resolves when all have listed. */
  async start(): Promise<void> {
    await Promise.all([...this.stores.values()].map((s) => s.cache.start()));
  }

  stop(): void {
    for (const store of this.stores.values()) store.cache.stop();
  }

  /** The storage of a stored resource; undefined for synthesized ones (namespaces). */
  storeFor(resource: Pick<ResourceType, 'group' | 'resource'>): GenericStore | undefined {
    return this.stores.get(strategyKey(resource));
  }

  get all(): readonly GenericStore[] {
    return [...this.stores.values()];
  }

  /** Deletes every object of a cluster and what it reserved (its virtual_k8s object is gone). Returns how many keys. */
  async deleteCluster(cluster: ClusterRef): Promise<number> {
    let removed = 0;
    const prefixes = [
      ...RESOURCES.filter((resource) => !SYNTHESIZED_RESOURCES.has(strategyKey(resource))).map((resource) => clusterPrefix(resource, cluster)),
      serviceIpKeyPrefix(cluster),
      namespaceMetadataPrefix(cluster),
    ];
    for (const prefix of prefixes) {
      for (;;) {
        const page = await this.options.store.list(prefix, { limit: 500 });
        for (const kv of page.items) {
          try {
            await this.options.store.delete(kv.key);
            removed++;
          } catch {
            // Deleted meanwhile: nothing to do.
          }
        }
        if (page.items.length === 0 || page.continue === undefined) break;
      }
    }
    return removed;
  }
}
