import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { statefulSetStrategy } from './stateful-set.js';
import { container, printed, runCreate, runUpdate } from './workload-test-support.js';

function statefulSet(spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'default' },
    spec: {
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [container('db', 'postgres:12')] } },
      ...spec,
    },
  };
}

describe('statefulset strategy', () => {
  it('defaults policy, update strategy, replicas, history and claim templates', () => {
    const body = statefulSet({ volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } }] });
    const { object, causes } = runCreate(statefulSetStrategy, body);
    assert.deepEqual(causes, []);
    const spec = object.spec as Record<string, unknown>;
    assert.equal(spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.equal(spec.replicas, 1);
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.deepEqual(spec.volumeClaimTemplates, [
      {
        metadata: { name: 'data', creationTimestamp: null },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      },
    ]);
    assert.equal(object.metadata.generation, 1);
    const onDelete = runCreate(statefulSetStrategy, statefulSet({ updateStrategy: { type: 'OnDelete' } })).object.spec as Record<string, unknown>;
    assert.deepEqual(onDelete.updateStrategy, { type: 'OnDelete' });
  });

  it('validates policy, update strategy and selector in kube 1.17 words', () => {
    const body = statefulSet({ podManagementPolicy: 'Eager', updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 2 } }, selector: {} });
    assert.deepEqual(printed(runCreate(statefulSetStrategy, body).causes), [
      "spec.podManagementPolicy: Invalid value: \"Eager\": must be 'OrderedReady' or 'Parallel'",
      "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:2}: only allowed for updateStrategy 'RollingUpdate'",
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset',
    ]);
    assert.deepEqual(printed(runCreate(statefulSetStrategy, statefulSet({ updateStrategy: { type: 'Canary' }, replicas: -1 })).causes), [
      `spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:"Canary", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'`,
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
    assert.deepEqual(printed(runCreate(statefulSetStrategy, statefulSet({ updateStrategy: { rollingUpdate: { partition: -1 } } })).causes), [
      'spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('checks the template labels and restart policy but, like 1.17, not the pod spec', () => {
    const body = statefulSet({ template: { metadata: { labels: { app: 'other' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'No_Image' }] } } });
    assert.deepEqual(printed(runCreate(statefulSetStrategy, body).causes), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });

  it('allows only replicas, template and updateStrategy to change', () => {
    const stored = runCreate(statefulSetStrategy, statefulSet()).object;
    const scaled = runUpdate(statefulSetStrategy, stored, statefulSet({ replicas: 3, updateStrategy: { type: 'OnDelete' } }));
    assert.deepEqual(scaled.causes, []);
    assert.equal(scaled.object.metadata.generation, 2);
    const renamed = runUpdate(statefulSetStrategy, stored, statefulSet({ serviceName: 'db-headless' }));
    assert.deepEqual(printed(renamed.causes), ["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden"]);
    assert.equal(runUpdate(statefulSetStrategy, stored, statefulSet()).object.metadata.generation, 1);
  });

  it('gives scale access', () => {
    const { object } = runCreate(statefulSetStrategy, statefulSet({ replicas: 3 }));
    assert.equal(statefulSetStrategy.scale?.specReplicas(object), 3);
    assert.equal(statefulSetStrategy.scale?.selector(object), 'app=db');
  });
});
