import { ConfigError } from './errors.js';
import { NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';
import type { ObjectRegistry } from './registry.js';

/** The secret policy every tenant gets in its `shared` namespace. */
export const BUILTIN_POLICY_NAME = 'svc-io-allow-own-workloads';
const BUILTIN_POLICY_NAMESPACE = 'shared';

/**
 * Pure: the built-in policy's spec — every workload of the tenant (its pods' client names are
 * `spiffe://<tenant>/…`). Other tenants' workloads are refused before any policy is read;
 * the rule says the same thing explicitly.
 */
export function builtinPolicySpec(tenant: string): Record<string, unknown> {
  return {
    algo: 'FIRST_MATCH',
    rules: [
      {
        metadata: { name: 'allow-tenant-workloads', description: `Every workload of tenant ${tenant}.` },
        spec: { action: 'ALLOW', client_name_matcher: { exact_values: [], regex_values: [`spiffe://${tenant.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}/.*`] } },
      },
    ],
    decrypt_cache_timeout: '1h',
  };
}

/** Creates the tenant's built-in policy unless it exists (tenant creation and bootstrap call this). */
export async function ensureBuiltinSecretPolicy(registry: ObjectRegistry, tenant: string): Promise<void> {
  const kind = NAMESPACED_KINDS.get('secret_policy') as ConfigKind;
  const metadata = {
    name: BUILTIN_POLICY_NAME,
    namespace: BUILTIN_POLICY_NAMESPACE,
    labels: {},
    annotations: {},
    description: 'Built in: lets every workload of this tenant have blindfold secrets encrypted under it decrypted.',
    disable: false,
  };
  try {
    await registry.createDecoded({ tenant, kind, namespace: BUILTIN_POLICY_NAMESPACE }, metadata, builtinPolicySpec(tenant), { creatorClass: 'edgeplane-platform', creatorId: 'bootstrap' });
  } catch (error) {
    if (!(error instanceof ConfigError && error.code === 'AlreadyExists')) throw error;
  }
}
