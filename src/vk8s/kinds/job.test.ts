import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { jobStrategy } from './job.js';
import { container, printed, runCreate, runUpdate, TEST_CONTEXT } from './workload-test-support.js';

const UID = '6f1c2b9a-1111-4c5e-9d3b-2a7f0e4c8d11';

function job(spec: Record<string, unknown> = {}, templateSpec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi', namespace: 'default' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [container('pi', 'perl')], ...templateSpec } }, ...spec },
  };
}

describe('job strategy', () => {
  it('defaults counters and generates the selector and labels from the uid and name', () => {
    const { object, causes } = runCreate(jobStrategy, job());
    assert.deepEqual(causes, []);
    const spec = object.spec as Record<string, unknown> & { template: { metadata: Record<string, unknown> } };
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 6);
    assert.deepEqual(spec.selector, { matchLabels: { 'controller-uid': UID } });
    assert.deepEqual(spec.template.metadata, { creationTimestamp: null, labels: { 'job-name': 'pi', 'controller-uid': UID } });
    // What kube returns after storage: an unlabelled Job shows its template's labels.
    assert.deepEqual(object.metadata.labels, { 'job-name': 'pi', 'controller-uid': UID });
    assert.equal(object.metadata.generation, undefined);
    assert.deepEqual(object.status, {});
    assert.deepEqual(spec.template, {
      metadata: { creationTimestamp: null, labels: { 'job-name': 'pi', 'controller-uid': UID } },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'pi', image: 'perl', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
        schedulerName: 'default-scheduler',
      },
    });
  });

  it('keeps its own labels and a parallelism without completions', () => {
    const body = job({ parallelism: 3 });
    body.metadata.labels = { team: 'math' };
    const { object } = runCreate(jobStrategy, body);
    const spec = object.spec as Record<string, unknown>;
    assert.equal(spec.completions, undefined);
    assert.equal(spec.parallelism, 3);
    assert.deepEqual(object.metadata.labels, { team: 'math' });
  });

  it('requires restartPolicy OnFailure or Never', () => {
    const body = job({}, { restartPolicy: undefined });
    assert.deepEqual(printed(runCreate(jobStrategy, body).causes), ['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
  });

  it('checks counters and a manual selector', () => {
    const manual = job({ manualSelector: true, selector: { matchLabels: { app: 'pi' } }, backoffLimit: -1, completions: -2 });
    assert.deepEqual(printed(runCreate(jobStrategy, manual).causes), [
      'spec.completions: Invalid value: -2: must be greater than or equal to 0',
      'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`',
    ]);
    const noSelector = job({ manualSelector: true });
    assert.deepEqual(printed(runCreate(jobStrategy, noSelector).causes), ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`']);
  });

  it('refuses generated labels that do not carry the uid', () => {
    const body = job();
    (body.spec as { template: Record<string, unknown> }).template.metadata = { labels: { 'controller-uid': 'someone-else' } };
    assert.deepEqual(printed(runCreate(jobStrategy, body).causes), [
      `spec.template.metadata.labels[controller-uid]: Invalid value: map[string]string{"controller-uid":"someone-else", "job-name":"pi"}: must be '${UID}'`,
      'spec.template.metadata.labels: Invalid value: map[string]string{"controller-uid":"someone-else", "job-name":"pi"}: `selector` does not match template `labels`',
    ]);
  });

  it('keeps completions, selector and template immutable', () => {
    const stored = runCreate(jobStrategy, job()).object;
    const spec = structuredClone(stored.spec) as Record<string, unknown> & { template: { spec: { containers: Array<Record<string, unknown>> } } };
    spec.completions = 2;
    spec.template.spec.containers = [container('pi', 'perl:5.30')];
    const { causes } = runUpdate(jobStrategy, stored, { ...stored, spec });
    const lines = printed(causes);
    assert.equal(lines[0], 'spec.completions: Invalid value: 2: field is immutable');
    assert.match(lines[1] ?? '', /^spec\.template: Invalid value: .*perl:5\.30.*: field is immutable$/);
    assert.equal(lines.length, 2);
    const unchanged = runUpdate(jobStrategy, stored, { ...stored, spec: { ...(stored.spec as object), parallelism: 4 } });
    assert.deepEqual(unchanged.causes, []);
  });

  it('orphans pods by default, selects on status.successful and validates status counters', () => {
    assert.equal(jobStrategy.defaultPropagation, 'Orphan');
    const { object } = runCreate(jobStrategy, job());
    assert.deepEqual(jobStrategy.selectableFields({ ...object, status: { succeeded: 2 } }), { 'status.successful': '2' });
    assert.deepEqual(printed(jobStrategy.status?.validateUpdate({ ...object, status: { failed: -1 } }, object, TEST_CONTEXT) ?? []), ['status.failed: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('drops the alpha ttlSecondsAfterFinished on create', () => {
    const { object } = runCreate(jobStrategy, job({ ttlSecondsAfterFinished: 100 }));
    assert.equal((object.spec as Record<string, unknown>).ttlSecondsAfterFinished, undefined);
  });
});
