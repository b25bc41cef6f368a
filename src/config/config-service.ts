import { matchesSelector, parseSelector, SelectorParseError, type Selector } from '../apimachinery/index.js';
import { type Access, authorize } from '../auth/authorize.js';
import { isPlatformNamespace, PLATFORM_TENANT, TENANT_NAMESPACES, type Principal } from '../auth/principal.js';
import type { PrefixCache } from '../store/prefix-cache.js';
import type { Store } from '../store/types.js';
import { isStoreError } from '../store/errors.js';
import { ConfigError, toConfigError } from './errors.js';
import type { StoredObject, VersionedObject } from './envelope.js';
import { buildGetResponse, formatNeeds, parseResponseFormat } from './get-response.js';
import { namespacePrefix, objectKey } from './keys.js';
import { NAMESPACE_KIND, NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';
import { brokenReferences, findReferrers } from './references.js';
import type { ObjectRegistry} from './registry.js';
import { type Actor, type Target } from './registry.js';

export interface ListQuery {
  readonly labelFilter?: string;
  readonly reportFields: boolean;
}

function actorOf(principal: Principal): Actor {
  return { creatorClass: 'edgeplane-api', creatorId: principal.user };
}

function selectorOf(labelFilter: string | undefined): Selector {
  try {
    return parseSelector(labelFilter ?? '');
  } catch (error) {
    throw ConfigError.invalid(`label_filter: ${error instanceof SelectorParseError ? error.message : String(error)}`);
  }
}

function listItem(object: VersionedObject, reportFields: boolean): Record<string, unknown> {
  return {
    tenant: object.system_metadata.tenant,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    uid: object.system_metadata.uid,
    description: object.metadata.description,
    disabled: object.metadata.disable,
    labels: object.metadata.labels,
    annotations: object.metadata.annotations,
    owner_view: object.system_metadata.owner_view,
    metadata: reportFields ? object.metadata : null,
    system_metadata: reportFields ? object.system_metadata : null,
    get_spec: reportFields ? object.spec : null,
    status_set: reportFields ? object.status : [],
  };
}

/**
 * The configuration API's operations as the caller sees them: the tenant comes from the
 * credential (platform namespaces belong to the platform tenant), every call is authorized
 * for its namespace, and the namespace must exist. Another tenant's objects are simply not
 * in the caller's key space, so they answer 404, never 403.
 */
export class ConfigService {
  readonly registry: ObjectRegistry;

  /** `namespaces` mirrors the namespace objects (see keys.ts); misses fall back to the store. */
  constructor(
    private readonly store: Store,
    registry: ObjectRegistry,
    private readonly namespaces: PrefixCache,
  ) {
    this.registry = registry;
  }

  /** The tenant and namespace a caller may act in for `access`; 404 when the namespace does not exist, 403 when denied. */
  authorizedTarget(principal: Principal, kind: ConfigKind, namespace: string, access: Access): Promise<Target> {
    return this.target(principal, kind, namespace, access);
  }

  private async target(principal: Principal, kind: ConfigKind, namespace: string, access: Access): Promise<Target> {
    const tenant = isPlatformNamespace(namespace) ? PLATFORM_TENANT : principal.tenant;
    await this.requireNamespace(tenant, namespace);
    const decision = authorize(principal, access, namespace);
    if (!decision.allowed) throw new ConfigError('PermissionDenied', decision.reason);
    return { tenant, kind, namespace };
  }

  private async requireNamespace(tenant: string, namespace: string): Promise<void> {
    const found = await this.namespaces.get(objectKey(tenant, 'namespace', '', namespace));
    if (found === undefined) throw new ConfigError('NotFound', `namespace ${namespace} does not exist`);
  }

  async create(principal: Principal, kind: ConfigKind, namespace: string, body: unknown): Promise<Record<string, unknown>> {
    if (!kind.publicCreate) {
      throw new ConfigError('Unimplemented', `${kind.kind} objects cannot be created through the API; they appear when a site registers (edgeplane site)`);
    }
    const target = await this.target(principal, kind, namespace, 'write');
    if (kind.kind === 'virtual_k8s') {
      const existing = await this.registry.list(target);
      if (existing.length > 0) {
        throw new ConfigError('AlreadyExists', `namespace ${namespace} already has virtual_k8s ${existing[0]?.metadata.name ?? ''}; a namespace holds at most one`);
      }
    }
    const object = await this.registry.create(target, body, actorOf(principal));
    return { metadata: object.metadata, system_metadata: object.system_metadata, spec: object.spec };
  }

  async replace(principal: Principal, kind: ConfigKind, namespace: string, name: string, body: unknown): Promise<Record<string, never>> {
    await this.registry.replace(await this.target(principal, kind, namespace, 'write'), name, body);
    return {};
  }

  async get(principal: Principal, kind: ConfigKind, namespace: string, name: string, responseFormat: string | undefined): Promise<Record<string, unknown>> {
    const format = parseResponseFormat(responseFormat);
    const target = await this.target(principal, kind, namespace, 'read');
    const object = await this.registry.get(target, name);
    const needs = formatNeeds(format);
    const referring = needs.referring ? await findReferrers(this.store, { tenant: target.tenant, kind: kind.kind, namespace, name }) : [];
    const broken = needs.broken ? await brokenReferences(this.store, kind, object) : { deleted: [], disabled: [] };
    return buildGetResponse(object, format, { referring, deleted: broken.deleted, disabled: broken.disabled });
  }

  async list(principal: Principal, kind: ConfigKind, namespace: string, query: ListQuery): Promise<{ items: unknown[]; errors: unknown[] }> {
    const selector = selectorOf(query.labelFilter);
    const objects = await this.registry.list(await this.target(principal, kind, namespace, 'read'));
    return { items: objects.filter((o) => matchesSelector(selector, o.metadata.labels)).map((o) => listItem(o, query.reportFields)), errors: [] };
  }

  async delete(principal: Principal, kind: ConfigKind, namespace: string, name: string, body: unknown): Promise<Record<string, never>> {
    const options = (body ?? {}) as Record<string, unknown>;
    if (typeof options !== 'object' || Array.isArray(options)) throw ConfigError.invalid('request body must be a JSON object');
    for (const key of Object.keys(options)) {
      if (!['namespace', 'name', 'fail_if_referred'].includes(key)) throw ConfigError.invalid(`${key}: unknown field`);
    }
    if (options['name'] !== undefined && options['name'] !== '' && options['name'] !== name) throw ConfigError.invalid(`name: ${JSON.stringify(options['name'])} does not match the name "${name}" in the path`);
    if (options['namespace'] !== undefined && options['namespace'] !== '' && options['namespace'] !== namespace) {
      throw ConfigError.invalid(`namespace: ${JSON.stringify(options['namespace'])} does not match the namespace "${namespace}" in the path`);
    }
    const failIfReferred = options['fail_if_referred'] ?? false;
    if (typeof failIfReferred !== 'boolean') throw ConfigError.invalid('fail_if_referred: must be a boolean');
    await this.registry.delete(await this.target(principal, kind, namespace, 'write'), name, failIfReferred);
    return {};
  }

  /** The sites a virtual site selects: its site type decides where sites are looked for. */
  async selectees(principal: Principal, namespace: string, name: string): Promise<{ items: unknown[] }> {
    const virtualSiteKind = NAMESPACED_KINDS.get('virtual_site') as ConfigKind;
    const target = await this.target(principal, virtualSiteKind, namespace, 'read');
    const virtualSite = await this.registry.get(target, name);
    const sites = await this.sitesOfType(target.tenant, virtualSite.spec['site_type'] as string);
    const selectors = ((virtualSite.spec['site_selector'] as { expressions: string[] }).expressions ?? []).map((e) => parseSelector(e));
    const items = sites
      .filter((s) => selectors.some((selector) => matchesSelector(selector, s.metadata.labels)))
      .map((s) => ({ kind: 'site', tenant: s.system_metadata.tenant, namespace: s.metadata.namespace, name: s.metadata.name }));
    return { items };
  }

  /** Customer-edge sites are the tenant's (namespace system); regional-edge sites the platform's. */
  async sitesOfType(tenant: string, siteType: string): Promise<StoredObject[]> {
    const siteKind = NAMESPACED_KINDS.get('site') as ConfigKind;
    const where: Target = siteType === 'REGIONAL_EDGE' ? { tenant: PLATFORM_TENANT, kind: siteKind, namespace: 'svc-io-system' } : { tenant, kind: siteKind, namespace: 'system' };
    const sites = await this.registry.list(where);
    return sites.filter((s) => s.spec['site_type'] === siteType);
  }

  // Namespaces (/api/web/namespaces): their own namespace is "".

  private namespaceTarget(principal: Principal): Target {
    return { tenant: principal.tenant, kind: NAMESPACE_KIND, namespace: '' };
  }

  private check(principal: Principal, access: Access, namespace: string): void {
    const decision = authorize(principal, access, namespace);
    if (!decision.allowed) throw new ConfigError('PermissionDenied', decision.reason);
  }

  async createNamespace(principal: Principal, body: unknown): Promise<Record<string, unknown>> {
    this.check(principal, 'manage', '*');
    const name = ((body as { metadata?: { name?: unknown } } | null)?.metadata?.name ?? '') as string;
    if (typeof name === 'string' && name.startsWith('svc-io-')) throw ConfigError.invalid(`metadata.name: "${name}": names starting with "svc-io-" are reserved for the platform`);
    const object = await this.registry.create(this.namespaceTarget(principal), body, actorOf(principal));
    return { metadata: object.metadata, system_metadata: object.system_metadata, spec: object.spec };
  }

  async getNamespace(principal: Principal, name: string, responseFormat: string | undefined): Promise<Record<string, unknown>> {
    const format = parseResponseFormat(responseFormat);
    this.check(principal, 'read', name);
    const object = await this.registry.get(this.namespaceTarget(principal), name);
    return buildGetResponse(object, format, { referring: [], deleted: [], disabled: [] });
  }

  async listNamespaces(principal: Principal, query: ListQuery): Promise<{ items: unknown[]; errors: unknown[] }> {
    const selector = selectorOf(query.labelFilter);
    const all = await this.registry.list(this.namespaceTarget(principal));
    const visible = all.filter((ns) => authorize(principal, 'read', ns.metadata.name).allowed && matchesSelector(selector, ns.metadata.labels));
    return { items: visible.map((o) => listItem(o, query.reportFields)), errors: [] };
  }

  async replaceNamespace(principal: Principal, name: string, body: unknown): Promise<Record<string, never>> {
    this.check(principal, 'manage', name);
    await this.registry.replace(this.namespaceTarget(principal), name, body);
    return {};
  }

  /** Deletes every object in the namespace, then the namespace. `system` and `shared` stay. */
  async cascadeDeleteNamespace(principal: Principal, name: string): Promise<Record<string, never>> {
    this.check(principal, 'manage', name);
    if (TENANT_NAMESPACES.includes(name) && name !== 'default') {
      throw new ConfigError('FailedPrecondition', `namespace ${name} is required by the platform and cannot be deleted`);
    }
    await this.registry.get(this.namespaceTarget(principal), name);
    for (const kind of NAMESPACED_KINDS.values()) {
      let token: string | undefined;
      do {
        const page = await this.store.list(namespacePrefix(principal.tenant, kind.kind, name), { limit: 500, ...(token === undefined ? {} : { continue: token }) });
        for (const item of page.items) {
          // Gone already (deleted concurrently) is fine; any other failure stops the cascade with an error.
          await this.store.delete(item.key).catch((error: unknown) => {
            if (!isStoreError(error, 'KeyNotFound')) throw toConfigError(error);
          });
        }
        token = page.continue;
      } while (token !== undefined);
    }
    const revision = await this.registry.delete(this.namespaceTarget(principal), name, false);
    this.namespaces.observe({ deleted: objectKey(principal.tenant, 'namespace', '', name), revision });
    return {};
  }
}
