import type { StoredObject } from '../config/envelope.js';
import type { PolicyAlgorithm, PolicyRule } from './policy-evaluation.js';

/** What `…/secret_policys/{name}/get_policy_document` answers. */
export interface PolicyDocument {
  readonly data: {
    readonly name: string;
    readonly namespace: string;
    readonly tenant: string;
    /** A 31-bit number as a decimal string, assigned when the policy was created. */
    readonly policy_id: string;
    readonly policy_info: { readonly algo: PolicyAlgorithm; readonly rules: readonly PolicyRule[] };
  };
}

/** The policy id a secret_policy object was given at create (kept in its status). */
export function policyIdOf(object: StoredObject): string | undefined {
  const id = object.status.find((s) => typeof s['policy_id'] === 'string')?.['policy_id'];
  return typeof id === 'string' ? id : undefined;
}

/** Pure: the policy document of a stored secret_policy object. */
export function policyDocument(object: StoredObject): PolicyDocument {
  return {
    data: {
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      tenant: object.system_metadata.tenant,
      policy_id: policyIdOf(object) ?? '',
      policy_info: { algo: object.spec['algo'] as PolicyAlgorithm, rules: (object.spec['rules'] as PolicyRule[] | undefined) ?? [] },
    },
  };
}
