import { dns1035LabelProblems, dns1123SubdomainProblems } from '../apimachinery/index.js';
import { isPlatformNamespace, PLATFORM_TENANT } from '../auth/principal.js';
import type { Store } from '../store/types.js';
import { ConfigError } from './errors.js';
import type { ObjectRef, ObjectRefWithKind, Spec, StoredObject } from './envelope.js';
import { kindPrefix, objectKey } from './keys.js';
import { normalizeRef } from './kinds/kind.js';
import { NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';

interface Owner {
  readonly tenant: string;
  readonly namespace: string;
}

/**
 * Resolves the references of a spec in place (tenant and namespace filled in, as the seed's
 * `policer: {tenant, namespace, name}` shows) and checks each: the right kind, a namespace
 * it may point into (its own, `shared`, or a platform namespace), and that the target exists.
 */
export async function resolveReferences(store: Store, kind: ConfigKind, spec: Spec, owner: Owner): Promise<void> {
  for (const reference of kind.references?.(spec) ?? []) {
    const ref = normalizeRef(reference.value, owner.tenant, owner.namespace);
    if (ref === undefined) throw ConfigError.invalid(`${reference.field}: must name an object`);
    if (ref.kind !== undefined && ref.kind !== reference.targetKind) {
      throw ConfigError.invalid(`${reference.field}: must refer to a ${reference.targetKind}, not a ${ref.kind}`);
    }
    const platform = isPlatformNamespace(ref.namespace);
    const reachable = platform ? ref.tenant === PLATFORM_TENANT || ref.tenant === owner.tenant : ref.namespace === owner.namespace || ref.namespace === 'shared';
    if (!reachable) {
      throw ConfigError.invalid(`${reference.field}: may refer only to objects in namespace ${owner.namespace}, shared or svc-io-shared`);
    }
    const target: ObjectRef = { ...ref, tenant: platform ? PLATFORM_TENANT : owner.tenant };
    // Checked before the lookup: a name no object can have (spaces, NUL, non-ASCII) is the client's mistake, not a key to read.
    const problems = referenceNameProblems(reference.targetKind, target);
    if (problems.length > 0) throw ConfigError.invalid(`${reference.field}: ${problems.join('; ')}`);
    if (target.tenant !== ref.tenant && !platform) throw ConfigError.invalid(`${reference.field}: ${reference.targetKind} ${ref.name} does not exist`);
    const found = await store.get(objectKey(target.tenant, reference.targetKind, target.namespace, target.name));
    if (found === undefined) {
      throw ConfigError.invalid(`${reference.field}: ${reference.targetKind} ${target.tenant}/${target.namespace}/${target.name} does not exist`);
    }
    // Rewrite in place, in the order the seed shows: tenant, namespace, name (then kind).
    const holder = reference.value as Record<string, unknown>;
    for (const key of Object.keys(holder)) delete holder[key];
    Object.assign(holder, { tenant: target.tenant, namespace: target.namespace, name: target.name }, ref.kind === undefined ? {} : { kind: ref.kind });
  }
}

/** Why a reference's tenant, namespace or name cannot name an object of `targetKind` (the rules objects are created with). */
function referenceNameProblems(targetKind: string, ref: ObjectRef): string[] {
  const kind = NAMESPACED_KINDS.get(targetKind);
  const nameProblems = kind?.nameRule === 'dns1123-subdomain' ? dns1123SubdomainProblems(ref.name) : dns1035LabelProblems(ref.name);
  return [
    ...nameProblems.map((p) => `name "${ref.name}": ${p}`),
    ...dns1035LabelProblems(ref.namespace).map((p) => `namespace "${ref.namespace}": ${p}`),
    ...dns1035LabelProblems(ref.tenant).map((p) => `tenant "${ref.tenant}": ${p}`),
  ];
}

function refTargets(kind: ConfigKind, object: StoredObject): Array<{ targetKind: string; ref: ObjectRef }> {
  const owner = { tenant: object.system_metadata.tenant, namespace: object.metadata.namespace };
  return (kind.references?.(object.spec) ?? []).flatMap((r) => {
    const ref = normalizeRef(r.value, owner.tenant, owner.namespace);
    return ref === undefined ? [] : [{ targetKind: r.targetKind, ref }];
  });
}

function describe(kind: string, object: StoredObject): ObjectRefWithKind {
  return { kind, uid: object.system_metadata.uid, tenant: object.system_metadata.tenant, namespace: object.metadata.namespace, name: object.metadata.name };
}

/** Objects of the tenant whose specs refer to the target. Scans the kinds that have references. */
export async function findReferrers(store: Store, target: { tenant: string; kind: string; namespace: string; name: string }): Promise<ObjectRefWithKind[]> {
  const referrers: ObjectRefWithKind[] = [];
  for (const kind of NAMESPACED_KINDS.values()) {
    if (kind.references === undefined || !(kind.refersTo ?? []).includes(target.kind)) continue;
    let token: string | undefined;
    do {
      const page = await store.list(kindPrefix(target.tenant, kind.kind), { limit: 500, ...(token === undefined ? {} : { continue: token }) });
      for (const item of page.items) {
        const object = JSON.parse(item.value) as StoredObject;
        const hit = refTargets(kind, object).some(
          ({ targetKind, ref }) => targetKind === target.kind && ref.tenant === target.tenant && ref.namespace === target.namespace && ref.name === target.name,
        );
        if (hit) referrers.push(describe(kind.kind, object));
      }
      token = page.continue;
    } while (token !== undefined);
  }
  return referrers;
}

/** The object's own references that point at deleted or disabled objects. */
export async function brokenReferences(store: Store, kind: ConfigKind, object: StoredObject): Promise<{ deleted: ObjectRefWithKind[]; disabled: ObjectRefWithKind[] }> {
  const deleted: ObjectRefWithKind[] = [];
  const disabled: ObjectRefWithKind[] = [];
  for (const { targetKind, ref } of refTargets(kind, object)) {
    const found = await store.get(objectKey(ref.tenant, targetKind, ref.namespace, ref.name));
    if (found === undefined) {
      deleted.push({ kind: targetKind, uid: '', tenant: ref.tenant, namespace: ref.namespace, name: ref.name });
    } else {
      const target = JSON.parse(found.value) as StoredObject;
      if (target.metadata.disable) disabled.push(describe(targetKind, target));
    }
  }
  return { deleted, disabled };
}
