import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dns1035LabelProblems } from '../apimachinery/index.js';
import { ConfigError } from './errors.js';
import type { ObjectMetadata } from './envelope.js';
import { NAMESPACE_KIND, NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';
import type { ObjectRegistry } from './registry.js';
import type { Logger } from '../observability/logger.js';
import { writeFileAtomic } from '../common/atomic-file.js';
import { ensureBuiltinSecretPolicy } from './builtin-secret-policy.js';
import { isStoreError } from '../store/errors.js';
import type { Store } from '../store/types.js';
import type { CredentialService } from '../auth/credentials.js';
import { PLATFORM_NAMESPACES, PLATFORM_TENANT, TENANT_NAMESPACES } from '../auth/principal.js';

const PLATFORM_ACTOR = { creatorClass: 'edgeplane-platform', creatorId: 'bootstrap' };
const ADMIN_TOKEN_DAYS = 90;

function metadata(name: string, namespace: string, description: string, labels: Record<string, string> = {}): ObjectMetadata {
  return { name, namespace, labels, annotations: {}, description, disable: false };
}

/** The platform's shared objects every tenant can refer to (in svc-io-shared). */
const PLATFORM_OBJECTS: ReadonlyArray<{ kind: string; name: string; description: string; spec: Record<string, unknown> }> = [
  {
    kind: 'virtual_site',
    name: 'all-regional-edges',
    description: 'Every regional edge site of the platform.',
    spec: { site_type: 'REGIONAL_EDGE', site_selector: { expressions: ['svc.io/siteType=svc-io-re'] } },
  },
  { kind: 'workload_flavor', name: 'tiny', description: '0.1 vCPU, 100 MiB', spec: { vcpus: 0.1, memory: 100 } },
  { kind: 'workload_flavor', name: 'medium', description: '0.25 vCPU, 250 MiB', spec: { vcpus: 0.25, memory: 250 } },
  { kind: 'workload_flavor', name: 'large', description: '1 vCPU, 1024 MiB', spec: { vcpus: 1, memory: 1024 } },
];

/**
 * Tenants: each has the namespaces default, shared and system and starts with an admin
 * token. The platform tenant owns svc-io-system and svc-io-shared.
 */
export class TenantService {
  constructor(
    private readonly store: Store,
    private readonly registry: ObjectRegistry,
    private readonly credentials: CredentialService,
    private readonly logger: Logger,
  ) {}

  private async ensureNamespace(tenant: string, name: string, description: string): Promise<void> {
    try {
      await this.registry.createDecoded({ tenant, kind: NAMESPACE_KIND, namespace: '' }, metadata(name, '', description), {}, PLATFORM_ACTOR);
    } catch (error) {
      if (!(error instanceof ConfigError && error.code === 'AlreadyExists')) throw error;
    }
  }

  /** Creates the tenant with its namespaces; resolves to its first admin token, or undefined if it existed. */
  async ensureTenant(name: string, namespaces: readonly string[] = TENANT_NAMESPACES): Promise<string | undefined> {
    const problems = dns1035LabelProblems(name);
    if (problems.length > 0) throw ConfigError.invalid(`name: "${name}": ${problems.join('; ')}`);
    let created = true;
    try {
      await this.store.create(`/auth/tenants/${name}`, JSON.stringify({ name }));
    } catch (error) {
      if (!isStoreError(error, 'KeyExists')) throw error;
      created = false;
    }
    for (const namespace of namespaces) await this.ensureNamespace(name, namespace, `The ${namespace} namespace of tenant ${name}.`);
    // The tenant's built-in secret policy (issue 7): its own workloads may unseal its blindfold secrets.
    if (namespaces.includes('shared')) await ensureBuiltinSecretPolicy(this.registry, name);
    if (!created) return undefined;
    const issued = await this.credentials.issueFor(name, `admin@${name}`, {
      name: 'admin',
      type: 'API_TOKEN',
      expirationDays: ADMIN_TOKEN_DAYS,
      roles: { '*': 'admin' },
    });
    this.logger.info({ tenant: name }, 'tenant created');
    return 'token' in issued.secret ? issued.secret.token : undefined;
  }

  /** A new tenant, for the platform's operators (POST /api/web/tenants). */
  async createTenant(name: string): Promise<string> {
    if (name === PLATFORM_TENANT || name.startsWith('svc-io')) throw ConfigError.invalid(`name: "${name}" is reserved for the platform`);
    const token = await this.ensureTenant(name);
    if (token === undefined) throw new ConfigError('AlreadyExists', `Object already exists: tenant ${name}`);
    return token;
  }

  /**
   * First start: the platform tenant, its shared objects, and the default tenant. Admin tokens
   * of newly created tenants are written to `$EDGEPLANE_HOME/api-token` (default tenant) and
   * `platform-api-token` (mode 0600). Later starts change nothing.
   */
  async bootstrap(home: string, defaultTenant: string): Promise<void> {
    const platformToken = await this.ensureTenant(PLATFORM_TENANT, PLATFORM_NAMESPACES);
    if (platformToken !== undefined) writeFileAtomic(join(home, 'platform-api-token'), platformToken + '\n', 0o600);
    for (const object of PLATFORM_OBJECTS) {
      const kind = NAMESPACED_KINDS.get(object.kind) as ConfigKind;
      try {
        await this.registry.createDecoded({ tenant: PLATFORM_TENANT, kind, namespace: 'svc-io-shared' }, metadata(object.name, 'svc-io-shared', object.description), object.spec, PLATFORM_ACTOR);
      } catch (error) {
        if (!(error instanceof ConfigError && error.code === 'AlreadyExists')) throw error;
      }
    }
    const token = await this.ensureTenant(defaultTenant);
    const tokenFile = join(home, 'api-token');
    if (token !== undefined) {
      writeFileAtomic(tokenFile, token + '\n', 0o600);
      this.logger.info({ tenant: defaultTenant, tokenFile }, 'admin token written');
    } else if (!existsSync(tokenFile)) {
      this.logger.warn({ tenant: defaultTenant }, `tenant exists but ${tokenFile} is missing; issue a new token with the platform credentials`);
    }
  }
}
