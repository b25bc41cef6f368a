import { randomBytes, randomUUID } from 'node:crypto';
import { guaranteedUpdate } from '../store/guaranteed-update.js';
import type { KeyValue, Store } from '../store/types.js';
import type { Clock } from '../common/clock.js';
import type { ValueTransformer } from '../common/envelope-encryption.js';
import { decodeObjectBody } from './decode.js';
import { ConfigError, toConfigError } from './errors.js';
import type { ObjectMetadata, StoredObject, SystemMetadata, VersionedObject } from './envelope.js';
import { namespacePrefix, objectKey } from './keys.js';
import type { ConfigKind } from './kinds/index.js';
import { normalizeSpec } from './normalize-spec.js';
import { findReferrers, resolveReferences } from './references.js';
import { openSecretFields, sealSecretFields } from './secret-fields.js';

/** Where an object is, after the service resolved the tenant and authorized the caller. */
export interface Target {
  readonly tenant: string;
  readonly kind: ConfigKind;
  readonly namespace: string;
}

/** Who writes, recorded in system_metadata. */
export interface Actor {
  readonly creatorClass: string;
  readonly creatorId: string;
}

function parsed(kv: KeyValue): StoredObject {
  return JSON.parse(kv.value) as StoredObject;
}

/**
 * The generic lifecycle of configuration objects, the same for every kind (like
 * kube-apiserver's generic registry): decode the envelope → normalize the spec (schema,
 * one-of defaults, kind rules) → resolve references → the kind's prepare step → one
 * compare-and-swap write. It does no authorization: the service in front of it does.
 * A kind's secret fields are stored encrypted (`encryption`, the server's envelope
 * encryption under the KEK) and decrypted when read.
 */
export class ObjectRegistry {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Told of each deletion at once, so this process's caches of config keys never serve a deleted object. */
    private readonly onDeleted: (write: { deleted: string; revision: number }) => void = () => {},
    private readonly encryption?: ValueTransformer,
  ) {}

  /** The object a stored value holds, its secret fields decrypted, at the value's revision. */
  private versioned(kind: ConfigKind, kv: KeyValue): VersionedObject {
    return { ...this.opened(kind, kv), resource_version: String(kv.modRevision) };
  }

  private opened(kind: ConfigKind, kv: KeyValue): StoredObject {
    return openSecretFields(kind, kv.key, parsed(kv), this.encryption);
  }

  /** `object` as stored at `key`: its secret fields encrypted. */
  private stored(kind: ConfigKind, key: string, object: StoredObject): string {
    return JSON.stringify({ ...object, spec: sealSecretFields(kind, key, object.spec, this.encryption) });
  }

  private systemMetadata(tenant: string, actor: Actor): SystemMetadata {
    return {
      uid: randomUUID(),
      creation_timestamp: this.clock.rfc3339Nano(),
      deletion_timestamp: null,
      modification_timestamp: null,
      initializers: null,
      finalizers: [],
      tenant,
      creator_class: actor.creatorClass,
      creator_id: actor.creatorId,
      object_index: 0,
      owner_view: null,
      labels: {},
    };
  }

  async create(target: Target, body: unknown, actor: Actor): Promise<VersionedObject> {
    const { metadata, spec: raw } = decodeObjectBody(body, { kind: target.kind, namespace: target.namespace, mode: 'create' });
    return this.createDecoded(target, metadata, raw, actor);
  }

  /** Create from already-decoded parts: used by the platform itself (registration, bootstrap). */
  async createDecoded(target: Target, metadata: ObjectMetadata, raw: unknown, actor: Actor): Promise<VersionedObject> {
    const spec = normalizeSpec(target.kind, raw);
    await resolveReferences(this.store, target.kind, spec, target);
    const prepared = target.kind.prepareForCreate?.(spec, {
      tenant: target.tenant,
      namespace: target.namespace,
      name: metadata.name,
      random: () => randomBytes(16).toString('hex'),
    }) ?? { spec, status: [] };
    const object: StoredObject = { metadata, system_metadata: this.systemMetadata(target.tenant, actor), spec: prepared.spec, status: prepared.status };
    try {
      const key = objectKey(target.tenant, target.kind.kind, target.namespace, metadata.name);
      const kv = await this.store.create(key, this.stored(target.kind, key, object));
      return { ...object, resource_version: String(kv.modRevision) };
    } catch (error) {
      const mapped = toConfigError(error);
      if (mapped.code === 'AlreadyExists') {
        throw new ConfigError('AlreadyExists', `Object already exists: ${target.kind.kind} ${metadata.name} in namespace ${target.namespace}`);
      }
      throw mapped;
    }
  }

  /** Replace metadata and spec; the name is the path's. Optional `resource_version` precondition. */
  async replace(target: Target, name: string, body: unknown): Promise<VersionedObject> {
    const decoded = decodeObjectBody(body, { kind: target.kind, namespace: target.namespace, mode: 'replace' });
    if (decoded.metadata.name !== name) {
      throw ConfigError.invalid(`metadata.name: "${decoded.metadata.name}" does not match the name "${name}" in the path; names cannot be changed`);
    }
    const spec = normalizeSpec(target.kind, decoded.spec);
    await resolveReferences(this.store, target.kind, spec, target);
    const key = objectKey(target.tenant, target.kind.kind, target.namespace, name);
    try {
      const kv = await guaranteedUpdate(this.store, key, (current) => {
        if (current === undefined) throw ConfigError.notFound(target.kind.kind, name, target.namespace);
        if (decoded.resourceVersion !== undefined && decoded.resourceVersion !== String(current.modRevision)) {
          throw new ConfigError('Aborted', `resource_version ${decoded.resourceVersion} does not match the current ${current.modRevision}: the object was modified; read it again`);
        }
        const old = this.opened(target.kind, current);
        const prepared = target.kind.prepareForReplace?.(old, spec) ?? { spec, problems: [] };
        if (prepared.problems.length > 0) throw ConfigError.invalid(prepared.problems.join('; '));
        const next: StoredObject = {
          metadata: decoded.metadata,
          system_metadata: { ...old.system_metadata, modification_timestamp: this.clock.rfc3339Nano() },
          spec: prepared.spec,
          status: old.status,
        };
        return this.stored(target.kind, key, next);
      });
      return this.versioned(target.kind, kv);
    } catch (error) {
      throw toConfigError(error);
    }
  }

  /**
   * A platform-side rewrite of metadata and spec (site re-registration): the spec is
   * normalized and its references resolved like any write, but the kind's replace rules are
   * not applied (they limit what users may change). System metadata and status are kept.
   */
  async replaceByPlatform(target: Target, name: string, update: (current: StoredObject) => { metadata: ObjectMetadata; spec: unknown }): Promise<VersionedObject> {
    const key = objectKey(target.tenant, target.kind.kind, target.namespace, name);
    try {
      const current = await this.store.get(key);
      if (current === undefined) throw ConfigError.notFound(target.kind.kind, name, target.namespace);
      const spec = normalizeSpec(target.kind, update(this.opened(target.kind, current)).spec);
      await resolveReferences(this.store, target.kind, spec, target);
      const kv = await guaranteedUpdate(this.store, key, (latest) => {
        if (latest === undefined) throw ConfigError.notFound(target.kind.kind, name, target.namespace);
        const old = this.opened(target.kind, latest);
        const { metadata } = update(old);
        const next: StoredObject = { metadata, system_metadata: { ...old.system_metadata, modification_timestamp: this.clock.rfc3339Nano() }, spec, status: old.status };
        return this.stored(target.kind, key, next);
      });
      return this.versioned(target.kind, kv);
    } catch (error) {
      throw toConfigError(error);
    }
  }

  /** Rewrites the status only (platform-side changes such as DNS verification or site state). */
  async updateStatus(target: Target, name: string, update: (object: StoredObject) => StoredObject['status']): Promise<VersionedObject> {
    const key = objectKey(target.tenant, target.kind.kind, target.namespace, name);
    try {
      const kv = await guaranteedUpdate(this.store, key, (current) => {
        if (current === undefined) throw ConfigError.notFound(target.kind.kind, name, target.namespace);
        // The stored spec is written back as it was read (its secret fields still encrypted).
        const object = parsed(current);
        return JSON.stringify({ ...object, status: update(openSecretFields(target.kind, key, object, this.encryption)) });
      });
      return this.versioned(target.kind, kv);
    } catch (error) {
      throw toConfigError(error);
    }
  }

  async get(target: Target, name: string): Promise<VersionedObject> {
    const kv = await this.store.get(objectKey(target.tenant, target.kind.kind, target.namespace, name)).catch((e: unknown) => {
      throw toConfigError(e);
    });
    if (kv === undefined) throw ConfigError.notFound(target.kind.kind, name, target.namespace);
    return this.versioned(target.kind, kv);
  }

  /** Every object of the kind in the namespace, in name order. */
  async list(target: Target): Promise<VersionedObject[]> {
    const out: VersionedObject[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.store.list(namespacePrefix(target.tenant, target.kind.kind, target.namespace), {
          limit: 500,
          ...(token === undefined ? {} : { continue: token }),
        });
        out.push(...page.items.map((kv) => this.versioned(target.kind, kv)));
        token = page.continue;
      } while (token !== undefined);
    } catch (error) {
      throw toConfigError(error);
    }
    return out;
  }

  /** Deletes; with `failIfReferred`, refuses (409) while other objects refer to it. Resolves to the deletion's revision. */
  async delete(target: Target, name: string, failIfReferred: boolean): Promise<number> {
    const key = objectKey(target.tenant, target.kind.kind, target.namespace, name);
    if (failIfReferred) {
      const referrers = await findReferrers(this.store, { tenant: target.tenant, kind: target.kind.kind, namespace: target.namespace, name });
      if (referrers.length > 0) {
        const names = referrers.map((r) => `${r.kind} ${r.namespace}/${r.name}`).join(', ');
        throw new ConfigError('Aborted', `${target.kind.kind} ${name} is referred by ${names}; not deleted because fail_if_referred is set`);
      }
    }
    try {
      const { revision } = await this.store.delete(key);
      this.onDeleted({ deleted: key, revision });
      return revision;
    } catch (error) {
      const mapped = toConfigError(error);
      throw mapped.code === 'NotFound' ? ConfigError.notFound(target.kind.kind, name, target.namespace) : mapped;
    }
  }
}
