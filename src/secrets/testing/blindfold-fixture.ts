import type { Logger } from '../../observability/logger.js';
import type { VersionedObject } from '../../config/envelope.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../../config/kinds/index.js';
import { ObjectRegistry } from '../../config/registry.js';
import { fakeClock } from '../../common/clock.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { blindfoldEncrypt } from '../blindfold-encrypt.js';
import { BlindfoldKeyRing } from '../blindfold-key-ring.js';
import { BlindfoldUnsealer } from '../blindfold-unsealer.js';
import { encryptionTargetFrom } from '../encryption-target.js';
import { policyDocument } from '../policy-document.js';
import { publicKeyDocument } from '../public-key-document.js';
import { captureLogger } from './capture-logger.js';
import { memoryKeySealer } from './memory-key-sealer.js';

export interface BlindfoldFixture {
  readonly store: Store;
  readonly keys: BlindfoldKeyRing;
  readonly unsealer: BlindfoldUnsealer;
  readonly registry: ObjectRegistry;
  readonly logger: Logger;
  /** Everything logged so far. */
  logs(): string;
  createPolicy(tenant: string, namespace: string, name: string, spec: Record<string, unknown>): Promise<VersionedObject>;
  deletePolicy(tenant: string, namespace: string, name: string): Promise<void>;
  /** Encrypts as `edgeplane secret encrypt` does, from the two documents (current key version unless given). */
  encrypt(plaintext: Uint8Array, policy: VersionedObject, keyVersion?: number): Promise<string>;
}

/** The blindfold pieces over a memory store, a memory sealer and a captured log. */
export function blindfoldFixture(): BlindfoldFixture {
  const store = openMemoryStore();
  const clock = fakeClock(new Date('2026-01-01T00:00:00Z'));
  const captured = captureLogger();
  const keys = new BlindfoldKeyRing({ store, sealer: memoryKeySealer(), clock, logger: captured.logger });
  const registry = new ObjectRegistry(store, clock);
  const unsealer = new BlindfoldUnsealer({ keys, config: store, logger: captured.logger });
  const kind = NAMESPACED_KINDS.get('secret_policy') as ConfigKind;
  return {
    store,
    keys,
    unsealer,
    registry,
    logger: captured.logger,
    logs: () => captured.text(),
    createPolicy: (tenant, namespace, name, spec) =>
      registry.createDecoded({ tenant, kind, namespace }, { name, namespace, labels: {}, annotations: {}, description: '', disable: false }, spec, { creatorClass: 'test', creatorId: 'test' }),
    deletePolicy: async (tenant, namespace, name) => void (await registry.delete({ tenant, kind, namespace }, name, false)),
    async encrypt(plaintext, policy, keyVersion) {
      const tenant = policy.system_metadata.tenant;
      const key = keyVersion === undefined ? await keys.current(tenant) : await keys.version(tenant, keyVersion);
      if (key === undefined) throw new Error(`tenant ${tenant} has no key version ${String(keyVersion)}`);
      return blindfoldEncrypt(plaintext, encryptionTargetFrom(publicKeyDocument(key), policyDocument(policy)));
    },
  };
}
