import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { cronJobStrategy } from './cron-job.js';
import { container, printed, runCreate, runUpdate } from './workload-test-support.js';

function cronJob(spec: Record<string, unknown> = {}, name = 'hello'): KubeObject {
  return {
    apiVersion: 'batch/v1beta1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container('hello', 'busybox')] } } } }, ...spec },
  };
}

describe('cronjob strategy', () => {
  it('defaults policy, suspend and history limits; the job template gets pod defaults only', () => {
    const { object, causes } = runCreate(cronJobStrategy, cronJob());
    assert.deepEqual(causes, []);
    const spec = object.spec as Record<string, unknown> & { jobTemplate: { metadata: unknown; spec: Record<string, unknown> & { template: { spec: Record<string, unknown> } } } };
    assert.equal(spec.concurrencyPolicy, 'Allow');
    assert.equal(spec.suspend, false);
    assert.equal(spec.successfulJobsHistoryLimit, 3);
    assert.equal(spec.failedJobsHistoryLimit, 1);
    assert.deepEqual(spec.jobTemplate.metadata, { creationTimestamp: null });
    assert.deepEqual(spec.jobTemplate.spec, {
      template: {
        metadata: { creationTimestamp: null },
        spec: {
          restartPolicy: 'OnFailure',
          containers: [{ name: 'hello', image: 'busybox', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          schedulerName: 'default-scheduler',
        },
      },
    });
    assert.equal(object.metadata.generation, undefined);
    assert.equal(cronJobStrategy.defaultPropagation, 'Orphan');
  });

  it('reports schedule errors in robfig/cron words', () => {
    const cases: Array<[string, string]> = [
      ['x', 'spec.schedule: Invalid value: "x": Expected exactly 5 fields, found 1: x'],
      ['* * * * x', 'spec.schedule: Invalid value: "* * * * x": Failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
      ['61 * * * *', 'spec.schedule: Invalid value: "61 * * * *": End of range (61) above maximum (59): 61'],
      ['0 0 * * 7', 'spec.schedule: Invalid value: "0 0 * * 7": End of range (7) above maximum (6): 7'],
      ['@fortnightly', 'spec.schedule: Invalid value: "@fortnightly": Unrecognized descriptor: @fortnightly'],
    ];
    for (const [schedule, message] of cases) assert.deepEqual(printed(runCreate(cronJobStrategy, cronJob({ schedule })).causes), [message], schedule);
    const missing = cronJob();
    delete (missing.spec as Record<string, unknown>).schedule;
    assert.deepEqual(printed(runCreate(cronJobStrategy, missing).causes), ['spec.schedule: Required value']);
  });

  it('checks policy, deadlines, history and the job template', () => {
    const body = cronJob({ concurrencyPolicy: 'Sometimes', startingDeadlineSeconds: -5, failedJobsHistoryLimit: -1 });
    const jobSpec = (body.spec as { jobTemplate: { spec: Record<string, unknown> } }).jobTemplate.spec;
    jobSpec.selector = { matchLabels: { a: 'b' } };
    jobSpec.manualSelector = true;
    assert.deepEqual(printed(runCreate(cronJobStrategy, body).causes), [
      'spec.startingDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0',
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
      'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
      'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
      'spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    ]);
    const always = cronJob({ jobTemplate: { spec: { template: { spec: { containers: [container()] } } } } });
    assert.deepEqual(printed(runCreate(cronJobStrategy, always).causes), ['spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
  });

  it('limits names to 52 characters on create only', () => {
    const long = 'a'.repeat(53);
    assert.deepEqual(printed(runCreate(cronJobStrategy, cronJob({}, long)).causes), [`metadata.name: Invalid value: "${long}": must be no more than 52 characters`]);
    assert.deepEqual(runCreate(cronJobStrategy, cronJob({}, 'a'.repeat(52))).causes, []);
    const stored = runCreate(cronJobStrategy, cronJob({}, long)).object;
    assert.deepEqual(runUpdate(cronJobStrategy, stored, cronJob({ suspend: true }, long)).causes, []);
  });

  it('keeps status on update', () => {
    const stored = { ...runCreate(cronJobStrategy, cronJob()).object, status: { lastScheduleTime: '2024-05-01T11:59:00Z' } };
    const { object } = runUpdate(cronJobStrategy, stored, { ...cronJob({ schedule: '@hourly' }), status: {} });
    assert.deepEqual(object.status, { lastScheduleTime: '2024-05-01T11:59:00Z' });
  });
});
