import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ResourceType } from '../../apimachinery/resource-type.js';

/** One write as admission sees it (kube's admission.Attributes, reduced). */
interface AdmissionAttributes {
  readonly operation: 'CREATE' | 'UPDATE';
  readonly cluster: ClusterRef;
  readonly resource: ResourceType;
  /** The object to be written: decoded, defaulted, with patches applied. */
  readonly object: KubeObject;
  /** The stored object an UPDATE replaces. */
  readonly old?: KubeObject;
  readonly dryRun: boolean;
}

/**
 * Validating admission in process (kube's ValidatingAdmissionWebhook idea): called before
 * a create, update or patch of the main resource is written (dry runs too); throws a
 * StatusError (422 Invalid, 403 Forbidden) to refuse it, or answers warnings for the client
 * (HTTP `Warning` headers, which kubectl prints). Synchronous: it reads caches only.
 */
export type AdmissionHook = (attributes: AdmissionAttributes) => readonly string[] | void;

/** Several hooks as one: each runs in order (the first refusal wins); their warnings add up. */
export function admissionChain(...hooks: readonly AdmissionHook[]): AdmissionHook {
  return (attributes) => hooks.flatMap((hook) => hook(attributes) ?? []);
}
