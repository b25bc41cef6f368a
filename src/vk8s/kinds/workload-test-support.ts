import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { Strategy, StrategyContext } from '../../registry/strategy.js';
import { cloneObject, type KubeObject } from '../../apimachinery/object.js';

/**
 * Test support for the workload strategies: runs a strategy's steps in the generic store's
 * order (defaults → system metadata → prepare → validate) on plain objects.
 */

export const TEST_CONTEXT: StrategyContext = { cluster: { tenant: 'acme', namespace: 'acme-dev', name: 'edge' }, now: '2024-05-01T12:00:00Z' };

export interface StrategyResult {
  readonly object: KubeObject;
  readonly causes: StatusCause[];
}

/** A create: defaults, the system metadata a store sets (uid, timestamp), prepareForCreate, validate. */
export function runCreate(strategy: Strategy, body: KubeObject, uid = '6f1c2b9a-1111-4c5e-9d3b-2a7f0e4c8d11'): StrategyResult {
  const object = cloneObject(body);
  strategy.defaults(object);
  object.metadata = { ...object.metadata, uid, creationTimestamp: TEST_CONTEXT.now, namespace: object.metadata.namespace ?? 'default' };
  strategy.prepareForCreate(object);
  return { object, causes: strategy.validate(object, TEST_CONTEXT) };
}

/** An update of `stored` with `body`: defaults, the stored system metadata, prepareForUpdate, validateUpdate. */
export function runUpdate(strategy: Strategy, stored: KubeObject, body: KubeObject): StrategyResult {
  const object = cloneObject(body);
  strategy.defaults(object);
  object.metadata = { ...object.metadata, uid: stored.metadata.uid, creationTimestamp: stored.metadata.creationTimestamp, namespace: stored.metadata.namespace };
  strategy.prepareForUpdate(object, stored);
  return { object, causes: strategy.validateUpdate(object, stored, TEST_CONTEXT) };
}

/** Causes as kube-apiserver prints them in an Invalid message: `<field>: <message>`. */
export function printed(causes: readonly StatusCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}

/** A minimal valid container. */
export function container(name = 'web', image = 'nginx:1.19'): Record<string, unknown> {
  return { name, image };
}
