import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { replicaSetStrategy } from './replica-set.js';
import { container, printed, runCreate, runUpdate, TEST_CONTEXT } from './workload-test-support.js';

function replicaSet(spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-5d4f8c7b9', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d4f8c7b9' } }, template: { metadata: { labels: { app: 'web', 'pod-template-hash': '5d4f8c7b9' } }, spec: { containers: [container()] } }, ...spec },
  };
}

describe('replicaset strategy', () => {
  it('defaults replicas to 1 and the pod template, starting at generation 1', () => {
    const { object, causes } = runCreate(replicaSetStrategy, replicaSet());
    assert.deepEqual(causes, []);
    const spec = object.spec as { replicas: number; template: { spec: { restartPolicy: string } } };
    assert.equal(spec.replicas, 1);
    assert.equal(spec.template.spec.restartPolicy, 'Always');
    assert.equal(object.metadata.generation, 1);
  });

  it('uses the deployment wording for an empty selector, as kube 1.17 does', () => {
    assert.deepEqual(printed(runCreate(replicaSetStrategy, replicaSet({ selector: { matchLabels: {} }, minReadySeconds: -1 })).causes), [
      'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
  });

  it('requires read-only GCE disks when replicated', () => {
    const body = replicaSet({ replicas: 2 });
    const template = (body.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    template.volumes = [{ name: 'data', gcePersistentDisk: { pdName: 'd1' } }];
    assert.deepEqual(printed(runCreate(replicaSetStrategy, body).causes), [
      'spec.template.spec.volumes[0].gcePersistentDisk.readOnly: Invalid value: false: must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only',
    ]);
  });

  it('keeps the selector immutable and bumps the generation on spec changes', () => {
    const stored = runCreate(replicaSetStrategy, replicaSet()).object;
    const scaled = runUpdate(replicaSetStrategy, stored, replicaSet({ replicas: 4 }));
    assert.deepEqual(scaled.causes, []);
    assert.equal(scaled.object.metadata.generation, 2);
    const moved = runUpdate(replicaSetStrategy, stored, replicaSet({ selector: { matchLabels: { app: 'web' } } }));
    assert.deepEqual(printed(moved.causes), ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable']);
  });

  it('selects on status.replicas and scales', () => {
    const { object } = runCreate(replicaSetStrategy, replicaSet({ replicas: 3 }));
    assert.deepEqual(replicaSetStrategy.selectableFields({ ...object, status: { replicas: 3 } }), { 'status.replicas': '3' });
    assert.deepEqual(replicaSetStrategy.selectableFields(object), { 'status.replicas': '0' });
    assert.equal(replicaSetStrategy.scale?.selector(object), 'app=web,pod-template-hash=5d4f8c7b9');
    assert.equal(replicaSetStrategy.defaultPropagation, 'Background');
  });

  it('validates status counters', () => {
    const stored = runCreate(replicaSetStrategy, replicaSet()).object;
    const write: KubeObject = { ...stored, status: { replicas: -1, fullyLabeledReplicas: 1 } };
    assert.deepEqual(printed(replicaSetStrategy.status?.validateUpdate(write, stored, TEST_CONTEXT) ?? []), [
      'status.replicas: Invalid value: -1: must be greater than or equal to 0',
      'status.fullyLabeledReplicas: Invalid value: 1: cannot be greater than status.replicas',
    ]);
  });
});
