import type { StatusCause } from '../errors/status-error.js';
import type { ObjectMeta } from '../../vk8s/object.js';
import type { NameRule } from '../../registry/strategy.js';

export interface ObjectMetaRules {
  readonly namespaced: boolean;
  readonly nameRule: NameRule;
}

/**
 * kube-apiserver's ValidateObjectMeta: name (or generateName) by the kind's rule, namespace
 * presence, labels and annotations syntax and size, ownerReferences, finalizers.
 * Field paths start at `metadata.`.
 */
export function validateObjectMeta(_meta: ObjectMeta, _rules: ObjectMetaRules): StatusCause[] {
  return [];
}

/** ValidateObjectMetaUpdate: name, namespace, uid, creationTimestamp, generateName immutable; plus the create rules. */
export function validateObjectMetaUpdate(_meta: ObjectMeta, _old: ObjectMeta, _rules: ObjectMetaRules): StatusCause[] {
  return [];
}
