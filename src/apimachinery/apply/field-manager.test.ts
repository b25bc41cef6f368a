import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../errors/status-error.js';
import { mergePatch } from '../patch/merge-patch.js';
import type { KubeObject } from '../object.js';
import { ApplyConflictError, applyConflictStatus } from './apply-errors.js';
import { ApplyTypes } from './apply-types.js';
import { loadKubernetesOpenApi } from '../../vk8s/openapi/kubernetes-document.js';
import { applyObject, updateManagedFields, withManagedFields } from './field-manager.js';

const k8s = new ApplyTypes(loadKubernetesOpenApi().definitions);
const T1 = '2020-01-01T00:00:01Z';
const T2 = '2020-01-01T00:00:02Z';
const T3 = '2020-01-01T00:00:03Z';

const typeOf = (o: { apiVersion: string; kind: string }): { types: ApplyTypes; definition: string; apiVersion: string } => ({
  types: k8s,
  definition: k8s.definitionFor(o.apiVersion, o.kind) ?? '',
  apiVersion: o.apiVersion,
});

/** The StatusError `run` throws (failing the test when it throws nothing or something else). */
function refusal(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof StatusError, String(error));
    return error;
  }
  assert.fail('no error');
}

function apply(live: KubeObject | undefined, applied: KubeObject, manager: string, now: string, force = false): KubeObject {
  return applyObject({ ...typeOf(applied), live, applied, manager, force, now });
}

/** A merge patch as a PATCH request makes it, with managedFields recorded as kube does. */
function patch(live: KubeObject, body: unknown, manager: string, now: string): KubeObject {
  const updated = mergePatch(live, body) as KubeObject;
  return withManagedFields(updated, updateManagedFields({ ...typeOf(live), old: live, updated, manager, now }));
}

const deployment = (replicas: number, container: Record<string, unknown> = { name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80, protocol: 'TCP' }] }): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx', labels: { app: 'nginx' } },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'nginx' } },
    template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [container] } },
  },
});

describe('applyObject', () => {
  it('records the managedFields kube 1.17 records for a ConfigMap applied, then patched twice (upstream TestApplyManagedFields)', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } }, data: { key: 'value' } };
    const created = apply(undefined, cm, 'apply_test', T1);
    const patched = patch(patch(created, { data: { 'new-key': 'value' } }, 'updater', T2), { data: { key: 'new value' } }, 'updater', T3);
    assert.equal(
      JSON.stringify(patched.metadata.managedFields),
      JSON.stringify([
        { manager: 'apply_test', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:test-label': {} } } } },
        { manager: 'updater', operation: 'Update', apiVersion: 'v1', time: T3, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key': {}, 'f:new-key': {} } } },
      ]),
    );
    assert.deepEqual(patched.data, { key: 'new value', 'new-key': 'value' });
  });

  it('writes no managedFields when the applied configuration sets nothing trackable (TestApplyRemovesEmptyManagedFields)', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default' } };
    const twice = apply(apply(undefined, cm, 'apply_test', T1), cm, 'apply_test', T2);
    assert.equal(twice.metadata.managedFields, undefined);
  });

  it('creates a Deployment with the fieldsV1 bytes of kube 1.17, the zero value left to before-first-apply', () => {
    const created = apply(undefined, deployment(3), 'kubectl', T1);
    assert.equal(
      JSON.stringify(created.metadata.managedFields),
      '[{"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1","time":"2020-01-01T00:00:01Z","fieldsType":"FieldsV1","fieldsV1":' +
        '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{"f:matchLabels":{"f:app":{}}},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},' +
        '"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{"f:containerPort":{},"f:protocol":{},".":{}}},".":{}}}}}}}},' +
        '{"manager":"before-first-apply","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:template":{"f:metadata":{"f:creationTimestamp":{}}}}}}]',
    );
    const spec = created.spec as { replicas: number; template: { metadata: Record<string, unknown> } };
    assert.equal(spec.replicas, 3);
    assert.deepEqual(spec.template.metadata, { creationTimestamp: null, labels: { app: 'nginx' } });
  });

  it('removes a container port and a label it no longer applies, but keeps replicas (1.17 prunes items, not fields)', () => {
    const first = apply(undefined, deployment(3), 'kubectl', T1);
    const second = deployment(3, { name: 'nginx', image: 'nginx:1.14.2' });
    delete (second.spec as { replicas?: number }).replicas;
    second.metadata.labels = { tier: 'web' };
    const after = apply(first, second, 'kubectl', T2);
    const spec = after.spec as { replicas: number; template: { spec: { containers: Array<Record<string, unknown>> } } };
    assert.deepEqual(spec.template.spec.containers, [{ name: 'nginx', image: 'nginx:1.14.2' }]);
    assert.deepEqual(after.metadata.labels, { tier: 'web' });
    assert.equal(spec.replicas, 3);
    const mine = after.metadata.managedFields?.find((e) => e.manager === 'kubectl');
    assert.equal(JSON.stringify(mine?.fieldsV1).includes('f:replicas'), false, 'nobody owns replicas any more');
  });

  it('refuses another applier changing replicas unless forced, and then moves ownership', () => {
    const first = apply(undefined, deployment(3), 'kubectl', T1);
    assert.throws(
      () => apply(first, deployment(5), 'ci', T2),
      (e: unknown) => e instanceof ApplyConflictError && e.message === 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas' && e.conflicts[0]?.path === '.spec.replicas',
    );
    const forced = apply(first, deployment(5), 'ci', T2, true);
    assert.equal((forced.spec as { replicas: number }).replicas, 5);
    const fields = (manager: string): string => JSON.stringify(forced.metadata.managedFields?.find((e) => e.manager === manager)?.fieldsV1);
    assert.match(fields('ci'), /f:replicas/);
    assert.doesNotMatch(fields('kubectl'), /f:replicas/);
    assert.match(fields('kubectl'), /f:image/, 'shared fields stay co-owned');
  });

  it('conflicts with an updater that changed a field, and answers 409 with FieldManagerConflict causes', () => {
    const applied = apply(undefined, deployment(3), 'apply_test', T1);
    const scaled = patch(applied, { spec: { replicas: 5 } }, 'kubectl-patch', T2);
    let error: unknown;
    try {
      apply(scaled, deployment(3), 'apply_test', T3);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof ApplyConflictError);
    assert.deepEqual(applyConflictStatus(error).toStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-patch" using apps/v1', field: '.spec.replicas' }] },
      code: 409,
    });
    assert.equal((apply(scaled, deployment(3), 'apply_test', T3, true).spec as { replicas: number }).replicas, 3);
  });

  it('gives the fields of an object created without managedFields to before-first-apply on the first apply', () => {
    const csa: KubeObject = { ...deployment(1), metadata: { name: 'nginx', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } };
    assert.equal(updateManagedFields({ ...typeOf(csa), old: undefined, updated: csa, manager: 'kubectl-client-side-apply', now: T1 }), undefined, '1.17 tracks nothing before an apply');
    assert.throws(() => apply(csa, deployment(2), 'kubectl', T2), { message: 'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas' });
    const same = apply(csa, deployment(1), 'kubectl', T2);
    const bfa = same.metadata.managedFields?.find((e) => e.manager === 'before-first-apply');
    assert.equal(bfa?.operation, 'Update');
    assert.equal(bfa?.time, undefined);
    assert.match(JSON.stringify(bfa?.fieldsV1), /"f:annotations":\{"f:kubectl.kubernetes.io\/last-applied-configuration":\{\}\}/);
  });

  it('records the Go zero value of a StatefulSet, so applying serviceName on create conflicts as in 1.17', () => {
    const sts: KubeObject = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' }, spec: { serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    assert.throws(() => apply(undefined, sts, 'kubectl', T1), { message: 'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.serviceName' });
    assert.equal((apply(undefined, sts, 'kubectl', T1, true).status as { replicas: number }).replicas, 0);
  });

  it('keys Service ports by port and protocol, and refuses ports without a protocol with 422 Invalid naming the list', () => {
    const svc: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP', name: 'tcp' }] } };
    assert.match(JSON.stringify(apply(undefined, svc, 'm', T1).metadata.managedFields), /"k:\{\\"port\\":53,\\"protocol\\":\\"TCP\\"\}":\{"f:name":\{\},"f:port":\{\},"f:protocol":\{\},".":\{\}\}/);
    const error = refusal(() => apply(undefined, deployment(1, { name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }), 'kubectl', T1));
    const field = 'spec.template.spec.containers[name="nginx"].ports';
    const message = 'element 0: associative list with keys has an element that omits key field "protocol"';
    assert.deepEqual(error.toStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Deployment.apps "nginx" is invalid: ${field}: ${message}`,
      reason: 'Invalid',
      details: { name: 'nginx', group: 'apps', kind: 'Deployment', causes: [{ reason: 'FieldValueInvalid', message, field }] },
      code: 422,
    });
  });

  it('refuses values of the wrong type with 422 Invalid, one cause per field path (issue 20: these were 500s)', () => {
    const causes = (applied: KubeObject): Array<[string, string]> => {
      const error = refusal(() => apply(undefined, applied, 'kubectl', T1));
      assert.equal(error.code, 422);
      return (error.details?.causes ?? []).map((c) => [c.field, c.message]);
    };
    const base = deployment(1);
    assert.deepEqual(causes({ ...base, spec: { ...(base.spec as object), replicas: 'three' } }), [['spec.replicas', 'expected numeric (int or float), got "three"']]);
    assert.deepEqual(causes({ ...base, metadata: { name: 'nginx', labels: 5 as unknown as Record<string, string> } }), [['metadata.labels', 'expected map, got 5']]);
    assert.deepEqual(causes({ ...base, spec: { template: { spec: { containers: {} } } } }), [['spec.template.spec.containers', 'expected list, got {}']]);
    assert.deepEqual(causes({ ...base, spec: { paused: 'yes', replicas: [1] } }), [
      ['spec.paused', 'expected boolean, got "yes"'],
      ['spec.replicas', 'expected numeric (int or float), got [1]'],
    ]);
    // A Quantity is a string in the OpenAPI document, and kubectl sends `cpu: 1` as a number.
    const quantity = deployment(1, { name: 'nginx', image: 'nginx', resources: { limits: { cpu: 1 } } });
    assert.equal((apply(undefined, quantity, 'kubectl', T1).spec as { replicas: number }).replicas, 1);
  });

  it('refuses to apply to a stored object the schema cannot type with 409 Conflict naming the field (issue 20: a 500)', () => {
    // 1.17 stores a StatefulSet whose template has a container without a name (it does not validate that template).
    const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }, { image: 'j' }] } };
    const live: KubeObject = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', resourceVersion: '5' }, spec: { serviceName: 'web', selector: { matchLabels: { app: 'a' } }, template } };
    const error = refusal(() => apply(live, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' }, spec: { replicas: 2 } }, 'kubectl', T1));
    assert.deepEqual([error.code, error.reason, error.details?.causes], [
      409,
      'Conflict',
      [{ reason: 'FieldValueInvalid', field: 'spec.template.spec.containers', message: 'element 1: associative list with keys has an element that omits key field "name"' }],
    ]);
    assert.match(error.message, /^Operation cannot be fulfilled on StatefulSet\.apps "web": the stored object cannot be applied to \(spec\.template\.spec\.containers: element 1: /);
  });

  it('owns atomic lists whole and set items by value', () => {
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', finalizers: ['a/b'] }, spec: { containers: [{ name: 'c', image: 'i', args: ['x', 'y'] }] } };
    const created = apply(undefined, pod, 'm', T1);
    assert.match(JSON.stringify(created.metadata.managedFields), /"f:finalizers":\{"v:\\"a\/b\\"":\{\}\}/);
    assert.match(JSON.stringify(created.metadata.managedFields), /"f:args":\{\}/);
    const changed = apply(created, { ...pod, spec: { containers: [{ name: 'c', image: 'i', args: ['z'] }] } }, 'm', T2);
    assert.deepEqual((changed.spec as { containers: Array<{ args: string[] }> }).containers[0]?.args, ['z']);
  });

  it('rejects configurations that carry managedFields or another apiVersion with 400', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [] } };
    assert.throws(() => apply(undefined, cm, 'm', T1), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'metadata.managedFields must be nil');
    assert.throws(
      () => applyObject({ ...typeOf(deployment(1)), apiVersion: 'apps/v1', live: undefined, applied: { ...deployment(1), apiVersion: 'extensions/v1beta1' }, manager: 'm', force: false, now: T1 }),
      { message: 'Incorrect version specified in apply patch. Specified patch version: extensions/v1beta1, expected: apps/v1' },
    );
  });
});

describe('updateManagedFields', () => {
  const applied = (): KubeObject => apply(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: '1' } } }, 'kubectl', T1);

  it('groups updates per manager and apiVersion, refreshes their time and sorts Apply first', () => {
    const once = patch(applied(), { data: { x: '1' } }, 'ctl', T2);
    const twice = patch(once, { data: { y: '2' } }, 'ctl', T3);
    assert.deepEqual(
      twice.metadata.managedFields?.map((e) => [e.manager, e.operation, e.time, JSON.stringify(e.fieldsV1)]),
      [
        ['kubectl', 'Apply', T1, '{"f:metadata":{"f:labels":{"f:a":{}}}}'],
        ['ctl', 'Update', T3, '{"f:data":{"f:x":{},"f:y":{},".":{}}}'],
      ],
    );
  });

  it('moves a field an applier owned to the updater without conflict', () => {
    const moved = patch(applied(), { metadata: { labels: { a: '2' } } }, 'ctl', T2);
    assert.deepEqual(
      moved.metadata.managedFields?.map((e) => [e.manager, JSON.stringify(e.fieldsV1)]),
      [['ctl', '{"f:metadata":{"f:labels":{"f:a":{}}}}']],
      'the applier owned nothing else, so its entry is gone',
    );
  });

  it('clears managedFields given as [{}] and leaves them alone for scale', () => {
    const live = applied();
    const cleared = { ...live, metadata: { ...live.metadata, managedFields: [{}] } } as KubeObject;
    assert.equal(updateManagedFields({ ...typeOf(live), old: live, updated: cleared, manager: 'x', now: T2 }), undefined);
    assert.equal(updateManagedFields({ ...typeOf(live), old: live, updated: live, manager: 'x', now: T2, subresource: 'scale' }), live.metadata.managedFields);
  });
});
