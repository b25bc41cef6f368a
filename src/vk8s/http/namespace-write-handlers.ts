import { evaluatePodSecurity, formatLevelVersion, forbiddenReason, namespacePolicy, withFloor, type LevelVersion } from '../../api/pod-security/index.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { fieldError, StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { validateLabels } from '../../apimachinery/validation/object-meta.js';
import { isStoreError } from '../../store/errors.js';
import type { NamespaceMetadata } from '../namespace-metadata.js';
import { namespaceObject } from './namespace-object.js';
import { parsePatchBody, patchJson, patchTypeOf } from './patch-object.js';
import { asKind, decodeResourceBody } from './request-body.js';
import { rawBody, scopeOf, warningHeader, type ResourceRequest } from './resource-request.js';
import { sendJson } from './response-format.js';
import { single } from './query.js';
import { patchSchemas } from './patch-schemas.js';

/** How many pods a change of the enforce level is tried against (kube's limit). */
const DRY_RUN_PODS = 3000;

const NAMESPACE = { kind: 'Namespace', group: '' };

/** The Pod Security label problems of `labels` as kube's 422 causes. */
function podSecurityCauses(labels: Readonly<Record<string, string>>): ReturnType<typeof fieldError.invalid>[] {
  return namespacePolicy(labels).problems.map((p) => fieldError.invalid(`metadata.labels[${p.label}]`, p.value, p.message));
}

/**
 * kube's dry run of a new enforce level against the namespace's pods: warnings naming the pods
 * that would be refused now, grouped by their reasons (the pods keep running).
 */
async function dryRunWarnings(r: ResourceRequest, enforce: LevelVersion): Promise<string[]> {
  const pods = r.deps.storage.storeFor({ group: '', resource: 'pods' });
  const listed = pods === undefined ? [] : (await pods.list(r.context.cluster, {})).items;
  const checked = listed.slice(0, DRY_RUN_PODS);
  const byReasons = new Map<string, string[]>();
  for (const pod of checked) {
    const results = evaluatePodSecurity(enforce, { annotations: pod.metadata.annotations ?? {}, spec: (pod['spec'] ?? {}) as PodSpec });
    if (results.length === 0) continue;
    const reasons = forbiddenReason(results);
    byReasons.set(reasons, [...(byReasons.get(reasons) ?? []), pod.metadata.name ?? '']);
  }
  const warnings: string[] = [];
  if (checked.length < listed.length) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${listed.length} existing pods`);
  if (byReasons.size === 0) return warnings;
  warnings.push(`existing pods in namespace "${r.context.cluster.namespace}" violate the new PodSecurity enforce level "${formatLevelVersion(enforce)}"`);
  for (const [reasons, names] of [...byReasons].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const [first] = [...names].sort();
    const others = names.length - 1;
    warnings.push(`${first ?? ''}${others === 0 ? '' : ` (and ${others} other pod${others === 1 ? '' : 's'})`}: ${reasons}`);
  }
  return warnings;
}

/**
 * `PUT` and `PATCH` (every patch type but apply) of the cluster's namespace: what may change
 * is its labels and annotations (the rest is the platform's, and is kept); the Pod Security
 * labels are checked as kube's admission checks them (422 naming the label), and a new
 * enforce level is tried against the pods that exist, answered as warnings.
 */
export async function handleNamespaceWrite(r: ResourceRequest): Promise<void> {
  const deps = r.deps.namespaces;
  if (deps === undefined) throw StatusError.methodNotAllowed(r.info.verb, { resource: 'namespaces', group: '' });
  const name = r.info.name ?? '';
  if (name !== r.context.cluster.namespace) throw StatusError.notFound({ resource: 'namespaces', group: '' }, name);
  const { metadata, revision } = deps.metadata.current(r.context.cluster);
  const current = namespaceObject(r.context, metadata, revision);
  let next: KubeObject;
  if (r.info.verb === 'update') {
    next = decodeResourceBody(rawBody(r), r.request.headers['content-type'], r.resource, single(r.query, 'fieldValidation') === 'Strict');
    const version = next.metadata.resourceVersion;
    if (version !== undefined && version !== '' && version !== current.metadata.resourceVersion) {
      throw StatusError.conflict({ resource: 'namespaces', group: '' }, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
  } else {
    const type = patchTypeOf(r.request.headers['content-type']);
    if (type === 'apply') throw StatusError.unsupportedMediaType('application/apply-patch+yaml');
    next = asKind(patchJson(current, type, parsePatchBody(rawBody(r), type), patchSchemas().forDefinition('io.k8s.api.core.v1.Namespace')), r.resource);
  }
  if (next.metadata.name !== undefined && next.metadata.name !== name) throw StatusError.badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
  const labels = next.metadata.labels ?? {};
  const causes = [...validateLabels(labels, 'metadata.labels'), ...podSecurityCauses(labels)];
  const oldProblems = JSON.stringify(podSecurityCauses(metadata.labels ?? {}));
  // kube: labels it cannot read are refused when they were readable before, or their problems changed.
  const refused = causes.filter((c) => !c.field?.startsWith('metadata.labels[pod-security') || oldProblems === '[]' || JSON.stringify(podSecurityCauses(labels)) !== oldProblems);
  if (refused.length > 0) throw StatusError.invalid(NAMESPACE, name, refused);
  const written: NamespaceMetadata = { labels, annotations: next.metadata.annotations ?? {} };
  const floor = deps.floor(r.context.cluster);
  const before = withFloor(namespacePolicy(metadata.labels ?? {}).policy, floor).enforce;
  const after = withFloor(namespacePolicy(labels).policy, floor).enforce;
  let newRevision = revision;
  if (!scopeOf(r).dryRun) {
    try {
      newRevision = (await deps.metadata.write(r.context.cluster, written, revision)).modRevision;
    } catch (error) {
      if (isStoreError(error, 'Conflict') || isStoreError(error, 'KeyExists')) throw StatusError.conflict({ resource: 'namespaces', group: '' }, name, 'the object has been modified; please apply your changes to the latest version and try again');
      throw error;
    }
  }
  const changed = formatLevelVersion(before) !== formatLevelVersion(after) && after.level !== 'privileged';
  const warnings = changed ? await dryRunWarnings(r, after) : [];
  if (warnings.length > 0) void r.reply.header('warning', warnings.map(warningHeader));
  void sendJson(r.reply, 200, namespaceObject(r.context, written, newRevision));
}
