import { fieldError, type StatusCause } from '../errors/status-error.js';
import { jsonEqual, type ObjectMeta, type OwnerReference } from '../object.js';
import type { NameRule } from './name-rule.js';
import { dns1035LabelProblems, dns1123LabelProblems, dns1123SubdomainProblems, labelValueProblems, qualifiedNameProblems } from './names.js';

/**
 * kube-apiserver 1.17's generic ObjectMeta validation (apimachinery's `ValidateObjectMeta*`
 * wrapped by core's, which adds the finalizer-name rule). Field paths start at `metadata.`;
 * messages are kube's word for word. Go renders some values with `%#v`: those are JSON here.
 */

export interface ObjectMetaRules {
  readonly namespaced: boolean;
  readonly nameRule: NameRule;
}

/** kube's FieldImmutableErrorMsg. */
export const FIELD_IMMUTABLE = 'field is immutable';
/** kube's TotalAnnotationSizeLimitB: 256 KiB of keys and values together. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
/** The finalizers kube knows without a domain prefix (`IsStandardFinalizerName`). */
const STANDARD_FINALIZERS: readonly string[] = ['kubernetes', 'orphan', 'foregroundDeletion'];

/**
 * kube-apiserver's ValidateObjectMeta: name (or generateName) by the kind's rule, namespace
 * presence, labels and annotations syntax and size, ownerReferences, finalizers.
 * Field paths start at `metadata.`.
 */
export function validateObjectMeta(meta: ObjectMeta, rules: ObjectMetaRules): StatusCause[] {
  const causes: StatusCause[] = [];
  const generateName = meta.generateName ?? '';
  if (generateName !== '') {
    for (const p of nameProblems(rules.nameRule, generateName, true)) causes.push(fieldError.invalid('metadata.generateName', generateName, p));
  }
  const name = meta.name ?? '';
  if (name === '') causes.push(fieldError.required('metadata.name', 'name or generateName is required'));
  else for (const p of nameProblems(rules.nameRule, name, false)) causes.push(fieldError.invalid('metadata.name', name, p));
  const namespace = meta.namespace ?? '';
  if (rules.namespaced) {
    if (namespace === '') causes.push(fieldError.required('metadata.namespace'));
    else for (const p of dns1123LabelProblems(namespace)) causes.push(fieldError.invalid('metadata.namespace', namespace, p));
  } else if (namespace !== '') {
    causes.push(fieldError.forbidden('metadata.namespace', 'not allowed on this type'));
  }
  const generation = meta.generation ?? 0;
  if (generation < 0) causes.push(fieldError.invalid('metadata.generation', generation, 'must be greater than or equal to 0'));
  causes.push(...validateCommonMeta(meta));
  causes.push(...validateFinalizers(meta.finalizers ?? [], 'metadata.finalizers'));
  causes.push(...validateKubeFinalizerNames(meta.finalizers ?? []));
  return causes;
}

/** ValidateObjectMetaUpdate: name, namespace, uid, creationTimestamp, generateName immutable; plus the create rules. */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta, rules: ObjectMetaRules): StatusCause[] {
  const causes: StatusCause[] = [];
  if (old.deletionTimestamp !== undefined) {
    const before = new Set(old.finalizers ?? []);
    const added = [...new Set(meta.finalizers ?? [])].filter((f) => !before.has(f)).sort();
    if (added.length > 0) {
      causes.push(fieldError.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`));
    }
  }
  if ((meta.resourceVersion ?? '') === '') causes.push(fieldError.invalid('metadata.resourceVersion', '', 'must be specified for an update'));
  const generation = meta.generation ?? 0;
  if (generation < (old.generation ?? 0)) causes.push(fieldError.invalid('metadata.generation', generation, 'must not be decremented'));
  causes.push(...immutable('metadata.name', meta.name ?? '', old.name ?? ''));
  causes.push(...immutable('metadata.namespace', meta.namespace ?? '', old.namespace ?? ''));
  causes.push(...immutable('metadata.uid', meta.uid ?? '', old.uid ?? ''));
  const created = meta.creationTimestamp ?? null;
  if (created !== (old.creationTimestamp ?? null)) causes.push(immutableAs('metadata.creationTimestamp', goTime(created ?? undefined)));
  const deleted = meta.deletionTimestamp;
  if (deleted !== old.deletionTimestamp) causes.push(immutableAs('metadata.deletionTimestamp', deleted === undefined ? 'null' : goTime(deleted)));
  const grace = meta.deletionGracePeriodSeconds;
  if (grace !== old.deletionGracePeriodSeconds) causes.push(immutableAs('metadata.deletionGracePeriodSeconds', grace === undefined ? 'null' : String(grace)));
  causes.push(...validateObjectMeta(meta, rules));
  return causes;
}

/**
 * The problems of a name (or, with `prefix`, a generateName, whose trailing dash is allowed)
 * under a kind's rule: kube's `NameIsDNSSubdomain`, `NameIsDNSLabel`, `NameIsDNS1035Label`,
 * `ValidatePathSegmentName`.
 */
export function nameProblems(rule: NameRule, value: string, prefix: boolean): string[] {
  const masked = prefix ? maskTrailingDash(value) : value;
  switch (rule) {
    case 'dns1123Subdomain':
      return dns1123SubdomainProblems(masked);
    case 'dns1123Label':
      return dns1123LabelProblems(masked);
    case 'dns1035Label':
      return dns1035LabelProblems(masked);
    case 'pathSegment':
      return pathSegmentProblems(value, prefix);
  }
}

/** ValidateLabels: every key a qualified name, every value a label value; errors at `path` itself. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const p of qualifiedNameProblems(key)) causes.push(fieldError.invalid(path, key, p));
    for (const p of labelValueProblems(value)) causes.push(fieldError.invalid(path, value, p));
  }
  return causes;
}

/** ValidateAnnotations: keys are qualified names (case ignored), keys and values total ≤ 256 KiB. */
function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const p of qualifiedNameProblems(key.toLowerCase())) causes.push(fieldError.invalid(path, key, p));
    size += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) causes.push(fieldError.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return causes;
}

/** ValidateImmutableField: `<path>: Invalid value: <new>: field is immutable` when the values differ (deeply). */
export function immutable(path: string, value: unknown, old: unknown): StatusCause[] {
  return jsonEqual(value, old) ? [] : [fieldError.invalid(path, value, FIELD_IMMUTABLE)];
}

/** Go's `time.Time.String()` of an RFC 3339 UTC timestamp, as kube prints a metav1.Time value. */
export function goTime(rfc3339: string | undefined): string {
  if (rfc3339 === undefined) return '0001-01-01 00:00:00 +0000 UTC';
  const date = new Date(rfc3339);
  if (Number.isNaN(date.getTime())) return rfc3339;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

/** Go's `%#v` of a `[]string`. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function validateCommonMeta(meta: ObjectMeta): StatusCause[] {
  return [
    ...validateLabels(meta.labels, 'metadata.labels'),
    ...validateAnnotations(meta.annotations, 'metadata.annotations'),
    ...validateOwnerReferences(meta.ownerReferences ?? []),
    ...validateManagedFields(meta),
  ];
}

function validateOwnerReferences(references: readonly OwnerReference[]): StatusCause[] {
  const path = 'metadata.ownerReferences';
  const causes: StatusCause[] = [];
  let firstController = '';
  for (const ref of references) {
    const { group, version } = parseApiVersion(ref.apiVersion ?? '');
    if (version === '') causes.push(fieldError.invalid(`${path}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if ((ref.kind ?? '') === '') causes.push(fieldError.invalid(`${path}.kind`, ref.kind ?? '', 'must not be empty'));
    if ((ref.name ?? '') === '') causes.push(fieldError.invalid(`${path}.name`, ref.name ?? '', 'must not be empty'));
    if ((ref.uid ?? '') === '') causes.push(fieldError.invalid(`${path}.uid`, ref.uid ?? '', 'must not be empty'));
    if (group === '' && version === 'v1' && ref.kind === 'Event') causes.push(fieldError.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController === '') firstController = current;
      else {
        causes.push(
          fieldError.invalid(path, references, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      }
    }
  }
  return causes;
}

/** apimachinery's ValidateFinalizers: qualified names, not both orphan and foregroundDeletion. */
function validateFinalizers(finalizers: readonly string[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of finalizers) for (const p of qualifiedNameProblems(f)) causes.push(fieldError.invalid(path, f, p));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    causes.push(fieldError.invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return causes;
}

/** core's validateKubeFinalizerName, per item: a name without a domain must be a standard one. */
function validateKubeFinalizerNames(finalizers: readonly string[]): StatusCause[] {
  return finalizers.flatMap((f, i) => validateKubeFinalizerName(f, `metadata.finalizers[${i}]`));
}

/** core's validateKubeFinalizerName for one finalizer at `path` (also namespaces' spec.finalizers). */
export function validateKubeFinalizerName(finalizer: string, path: string): StatusCause[] {
  const causes = qualifiedNameProblems(finalizer).map((p) => fieldError.invalid(path, finalizer, p));
  if (!finalizer.includes('/') && !STANDARD_FINALIZERS.includes(finalizer)) {
    causes.push(fieldError.invalid(path, finalizer, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return causes;
}

function validateManagedFields(meta: ObjectMeta): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const entry of meta.managedFields ?? []) {
    const operation: string = entry.operation ?? '';
    if (operation !== 'Apply' && operation !== 'Update') causes.push(fieldError.invalid('metadata.managedFields.operation', operation, 'must be `Apply` or `Update`'));
    const fieldsType: string = entry.fieldsType ?? '';
    if (fieldsType !== 'FieldsV1') causes.push(fieldError.invalid('metadata.managedFields.fieldsType', fieldsType, 'must be `FieldsV1`'));
  }
  return causes;
}

/** schema.ParseGroupVersion as FromAPIVersionAndKind uses it: more than one slash yields nothing. */
function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] ?? '' };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

function pathSegmentProblems(value: string, prefix: boolean): string[] {
  if (!prefix && (value === '.' || value === '..')) return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

/** kube's maskTrailingDash: a generateName may end in '-' (the random suffix follows). */
function maskTrailingDash(value: string): string {
  return value.length > 1 && value.endsWith('-') ? `${value.slice(0, -2)}a` : value;
}

function immutableAs(path: string, rendered: string): StatusCause {
  return { reason: 'FieldValueInvalid', field: path, message: `Invalid value: ${rendered}: ${FIELD_IMMUTABLE}` };
}
