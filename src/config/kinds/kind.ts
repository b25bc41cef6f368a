import type { ObjectRef, Spec, StoredObject } from '../envelope.js';
import type { OneOfGroup } from '../one-of.js';
import type { JsonSchema } from '../spec-schema.js';

/** Which API path family a kind is served under: `/api/<slug>/namespaces/{ns}/<kind>s`. */
type Slug = 'config' | 'secret_management' | 'web';

/** A reference found in a spec: the field it sits in, its raw value, and the kind it must point at. */
interface SpecReference {
  readonly field: string;
  readonly value: unknown;
  readonly targetKind: string;
}

interface CreateContext {
  readonly tenant: string;
  readonly namespace: string;
  readonly name: string;
  readonly random: () => string;
}

/**
 * Everything kind-specific, as pure data and functions (the generic registry does the rest):
 * like a kube-apiserver strategy. Adding a kind means adding one file in this folder.
 */
export interface ConfigKind {
  readonly kind: string;
  readonly slug: Slug;
  readonly description: string;
  readonly specSchema: JsonSchema;
  readonly oneOfs: readonly OneOfGroup[];
  /** Name syntax: DNS-1035 label for most kinds; a DNS subdomain where the name is a domain. */
  readonly nameRule: 'dns1035' | 'dns1123-subdomain';
  /** False when objects appear only through the platform itself (sites: by registration). */
  readonly publicCreate: boolean;
  /** Semantic rules beyond the schema; messages name the field. */
  validate?(spec: Spec): string[];
  /** The references in a spec, checked on create and replace and used for referring_objects. */
  references?(spec: Spec): SpecReference[];
  /** The kinds `references` can point at (so a referrer scan visits only possible referrers). */
  readonly refersTo?: readonly string[];
  /**
   * Paths (under the spec) of string fields that hold secrets: they are encrypted at rest
   * under the key-encryption key (`config/secret-fields.ts`), the rest of the object is not.
   */
  readonly secretFields?: ReadonlyArray<readonly string[]>;
  /** Server-set fields and initial status on create. */
  prepareForCreate?(spec: Spec, context: CreateContext): { spec: Spec; status: StoredObject['status'] };
  /** Rules for replace given the stored object: problems, and the spec to store. */
  prepareForReplace?(old: StoredObject, spec: Spec): { spec: Spec; problems: string[] };
}

/** A reference with its tenant and namespace defaulted to the referrer's. */
export function normalizeRef(raw: unknown, tenant: string, namespace: string): ObjectRef | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const r = raw as Partial<ObjectRef>;
  if (typeof r.name !== 'string' || r.name === '') return undefined;
  return {
    tenant: typeof r.tenant === 'string' && r.tenant !== '' ? r.tenant : tenant,
    namespace: typeof r.namespace === 'string' && r.namespace !== '' ? r.namespace : namespace,
    name: r.name,
    ...(typeof r.kind === 'string' && r.kind !== '' ? { kind: r.kind } : {}),
  };
}
