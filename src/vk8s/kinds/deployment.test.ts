import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { deploymentStrategy } from './deployment.js';
import { container, printed, runCreate, runUpdate, TEST_CONTEXT } from './workload-test-support.js';

function deployment(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', ...metadata },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container()] } }, ...spec },
  };
}

describe('deployment strategy', () => {
  it('defaults a minimal deployment like kube-apiserver 1.17', () => {
    const { object, causes } = runCreate(deploymentStrategy, deployment());
    assert.deepEqual(causes, []);
    assert.deepEqual(object.spec, {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' }, creationTimestamp: null },
        spec: {
          containers: [{ name: 'web', image: 'nginx:1.19', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          schedulerName: 'default-scheduler',
        },
      },
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    assert.deepEqual(object.status, {});
    assert.equal(object.metadata.generation, 1);
    // apps/v1 defaults neither the selector nor the labels from the template.
    assert.equal(object.metadata.labels, undefined);
  });

  it('keeps values that are set and fills the rolling update parameters left out', () => {
    const { object } = runCreate(deploymentStrategy, deployment({ replicas: 0, strategy: { rollingUpdate: { maxSurge: 2 } }, revisionHistoryLimit: 0 }));
    const spec = object.spec as Record<string, unknown>;
    assert.equal(spec.replicas, 0);
    assert.equal(spec.revisionHistoryLimit, 0);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: '25%' } });
    const recreate = runCreate(deploymentStrategy, deployment({ strategy: { type: 'Recreate' } })).object.spec as Record<string, unknown>;
    assert.deepEqual(recreate.strategy, { type: 'Recreate' });
  });

  it('reports a missing selector together with the label mismatch, as kubectl shows it', () => {
    const body = deployment();
    delete (body.spec as Record<string, unknown>).selector;
    assert.deepEqual(printed(runCreate(deploymentStrategy, body).causes), [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  it('rejects an empty selector and one that does not match', () => {
    assert.deepEqual(printed(runCreate(deploymentStrategy, deployment({ selector: {} })).causes), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
    assert.deepEqual(printed(runCreate(deploymentStrategy, deployment({ selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] } })).causes), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    assert.deepEqual(printed(runCreate(deploymentStrategy, deployment({ selector: { matchExpressions: [{ key: 'app', operator: 'Is' }] } })).causes), [
      'spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Is", Values:[]string(nil)}}}: invalid label selector',
    ]);
  });

  it('checks replicas, restart policy, deadlines and history like kube', () => {
    const body = deployment({ replicas: -1, minReadySeconds: 700, revisionHistoryLimit: -2 });
    const template = (body.spec as { template: { spec: Record<string, unknown> } }).template;
    template.spec.restartPolicy = 'OnFailure';
    template.spec.activeDeadlineSeconds = 5;
    assert.deepEqual(printed(runCreate(deploymentStrategy, body).causes), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Invalid value: 5: must not be specified',
      'spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0',
      'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ]);
  });

  it('checks the rolling update parameters', () => {
    const zero = deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } });
    assert.deepEqual(printed(runCreate(deploymentStrategy, zero).causes), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0',
    ]);
    const bad = deployment({ strategy: { rollingUpdate: { maxSurge: 'lots', maxUnavailable: '150%' } } });
    assert.deepEqual(printed(runCreate(deploymentStrategy, bad).causes), [
      `spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"lots"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    ]);
    const recreate = deployment({ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } });
    assert.deepEqual(printed(runCreate(deploymentStrategy, recreate).causes), ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]);
    assert.deepEqual(printed(runCreate(deploymentStrategy, deployment({ strategy: { type: 'BlueGreen' } })).causes), [
      'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
    ]);
  });

  it('refuses a selector change with the message kubectl users know', () => {
    const stored = runCreate(deploymentStrategy, deployment()).object;
    const changed = deployment({ selector: { matchLabels: { app: 'web', tier: 'front' } }, template: { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [container()] } } });
    assert.deepEqual(printed(runUpdate(deploymentStrategy, stored, changed).causes), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"front"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });

  it('bumps the generation on spec and annotation changes only, and keeps the status', () => {
    const stored = { ...runCreate(deploymentStrategy, deployment()).object, status: { replicas: 1, observedGeneration: 1 } };
    const same = runUpdate(deploymentStrategy, stored, { ...deployment(), status: { replicas: 9 } });
    assert.equal(same.object.metadata.generation, 1);
    assert.deepEqual(same.object.status, { replicas: 1, observedGeneration: 1 });
    assert.equal(runUpdate(deploymentStrategy, stored, deployment({ replicas: 3 })).object.metadata.generation, 2);
    assert.equal(runUpdate(deploymentStrategy, stored, deployment({}, { annotations: { note: 'x' } })).object.metadata.generation, 2);
    assert.equal(runUpdate(deploymentStrategy, stored, deployment({}, { labels: { team: 'a' } })).object.metadata.generation, 1);
  });

  it('gives scale access to replicas and the selector', () => {
    const { object } = runCreate(deploymentStrategy, deployment({ replicas: 2, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } }));
    const scale = deploymentStrategy.scale;
    assert.ok(scale);
    assert.equal(scale.specReplicas(object), 2);
    assert.equal(scale.statusReplicas({ ...object, status: { replicas: 5 } }), 5);
    assert.equal(scale.selector(object), 'app=web,tier in (a,b)');
    scale.setSpecReplicas(object, 7);
    assert.equal((object.spec as { replicas: number }).replicas, 7);
  });

  it('status writes keep the spec and validate the counters', () => {
    const stored: KubeObject = { ...runCreate(deploymentStrategy, deployment()).object, status: { collisionCount: 2 } };
    const status = deploymentStrategy.status;
    assert.ok(status);
    const write: KubeObject = { ...deployment({ replicas: 5 }), metadata: { name: 'web', resourceVersion: '9' }, status: { replicas: 1, readyReplicas: 2, availableReplicas: 3, collisionCount: 1 } };
    status.prepareForUpdate(write, stored);
    assert.deepEqual(write.spec, stored.spec);
    const annotated: KubeObject = { ...stored, metadata: { ...stored.metadata, labels: { other: 'x' }, annotations: { 'deployment.kubernetes.io/revision': '2' } } };
    status.prepareForUpdate(annotated, stored);
    assert.deepEqual(annotated.metadata.annotations, { 'deployment.kubernetes.io/revision': '2' }, 'annotations written through /status stay, as kube 1.17');
    assert.deepEqual(annotated.metadata.labels, stored.metadata.labels, 'labels do not');
    assert.deepEqual(printed(status.validateUpdate(write, stored, TEST_CONTEXT)), [
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });

  it('drops alpha pod fields of 1.17 on create', () => {
    const body = deployment();
    const spec = (body.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    spec.containers = [{ ...container(), startupProbe: { exec: { command: ['true'] } } }];
    spec.topologySpreadConstraints = [{ maxSkew: 1 }];
    const created = runCreate(deploymentStrategy, body).object;
    const template = (created.spec as { template: { spec: { containers: Array<Record<string, unknown>>; topologySpreadConstraints?: unknown } } }).template.spec;
    assert.equal(template.containers[0]?.startupProbe, undefined);
    assert.equal(template.topologySpreadConstraints, undefined);
  });
});
