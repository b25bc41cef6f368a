import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';
import type { Clock } from '../common/clock.js';
import type { ValueTransformer } from '../common/envelope-encryption.js';
import type { Store } from '../store/types.js';
import type { BlindfoldKeyPair } from './blindfold-key-pair.js';
import { BlindfoldKeyRing } from './blindfold-key-ring.js';
import { BlindfoldUnsealer, type ConfigSource } from './blindfold-unsealer.js';
import type { KeySealer } from './ports.js';

export interface SecretServiceOptions {
  readonly store: Store;
  /** The identity service's sealer (AES-256-GCM under the platform's key-encryption key). */
  readonly sealer: KeySealer;
  /** Where secret policies and secret_management_access objects are read (the config cache). */
  readonly config: ConfigSource;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `edgeplane_secret_unseal_total{outcome}` is registered here when given. */
  readonly metrics?: Registry;
  /** Key pair maker (tests); default RSA-3072. */
  readonly generateKeyPair?: () => Promise<BlindfoldKeyPair>;
  /** How config objects' secret fields are kept at rest (the server's envelope encryption); none: in the clear. */
  readonly encryption?: ValueTransformer;
}

/** The control plane's secret service: each tenant's key ring and the unsealer over it. */
export interface SecretService {
  readonly keys: BlindfoldKeyRing;
  readonly unsealer: BlindfoldUnsealer;
  readonly config: ConfigSource;
  /** Opens the secret fields of secret_management_access objects read from `config`. */
  readonly encryption?: ValueTransformer;
}

export function createSecretService(options: SecretServiceOptions): SecretService {
  const keys = new BlindfoldKeyRing({
    store: options.store,
    sealer: options.sealer,
    clock: options.clock,
    logger: options.logger,
    ...(options.generateKeyPair === undefined ? {} : { generate: options.generateKeyPair }),
  });
  const outcomes =
    options.metrics === undefined
      ? undefined
      : new Counter({ name: 'edgeplane_secret_unseal_total', help: 'Blindfold unseal requests, by outcome (Unsealed or the error code).', labelNames: ['outcome'], registers: [options.metrics] });
  const unsealer = new BlindfoldUnsealer({
    keys,
    config: options.config,
    logger: options.logger,
    ...(outcomes === undefined ? {} : { onOutcome: (outcome: string) => outcomes.inc({ outcome }) }),
  });
  return { keys, unsealer, config: options.config, ...(options.encryption === undefined ? {} : { encryption: options.encryption }) };
}
