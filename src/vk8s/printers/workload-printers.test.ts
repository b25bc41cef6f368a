import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronJobPrinter } from './cron-job-printer.js';
import { deploymentPrinter } from './deployment-printer.js';
import { jobPrinter } from './job-printer.js';
import { replicaSetPrinter } from './replica-set-printer.js';
import { statefulSetPrinter } from './stateful-set-printer.js';
import { DAY, HOUR, MINUTE, NOW, SECOND, ago, meta, namedDoc, object } from './testing/fixtures.js';

const template = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'nginx', image: 'nginx:1.17' },
      { name: 'log', image: 'busybox' },
    ],
  },
};

describe('deployment printer', () => {
  const printer = deploymentPrinter(namedDoc);

  it('deployment printer prints ready/replicas, up-to-date, available and the selector', () => {
    const d = object('apps/v1', 'Deployment', meta('web', 2 * HOUR), {
      spec: { replicas: 3, selector: { matchLabels: { app: 'web', tier: 'front' } }, template },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    });
    assert.deepEqual(printer.cells(d, NOW), ['web', '2/3', 3, 2, '120m', 'nginx,log', 'nginx:1.17,busybox', 'app=web,tier=front']);
  });

  it('deployment printer prints zeros before the controller reports, one replica by default and an empty selector as ""', () => {
    const d = object('apps/v1', 'Deployment', meta('new', 10 * SECOND), { spec: { template: { spec: { containers: [] } } } });
    assert.deepEqual(printer.cells(d, NOW), ['new', '0/1', 0, 0, '10s', '', '', '']);
  });

  it('deployment printer writes expressions in kube selector syntax', () => {
    const d = object('apps/v1', 'Deployment', meta('x', MINUTE), {
      spec: {
        replicas: 0,
        selector: {
          matchLabels: { app: 'x' },
          matchExpressions: [
            { key: 'env', operator: 'In', values: ['prod', 'dev'] },
            { key: 'canary', operator: 'DoesNotExist' },
            { key: 'zone', operator: 'NotIn', values: ['b'] },
            { key: 'beta', operator: 'Exists' },
          ],
        },
        template,
      },
    });
    assert.equal(printer.cells(d, NOW)[7], 'app=x,beta,!canary,env in (dev,prod),zone notin (b)');
  });

  it('deployment printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.type, c.priority, c.description]),
      [
        ['Name', 'string', 0, 'ObjectMeta.name'],
        ['Ready', 'string', 0, 'Number of the pod with ready state'],
        ['Up-to-date', 'string', 0, 'DeploymentStatus.updatedReplicas'],
        ['Available', 'string', 0, 'DeploymentStatus.availableReplicas'],
        ['Age', 'string', 0, 'ObjectMeta.creationTimestamp'],
        ['Containers', 'string', 1, 'Names of each container in the template.'],
        ['Images', 'string', 1, 'Images referenced by each container in the template.'],
        ['Selector', 'string', 1, 'DeploymentSpec.selector'],
      ],
    );
  });
});

describe('replica set printer', () => {
  const printer = replicaSetPrinter(namedDoc);

  it('replica set printer prints desired, current and ready as integers', () => {
    const rs = object('apps/v1', 'ReplicaSet', meta('web-5d4f8c7b9', 2 * HOUR), {
      spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d4f8c7b9' } }, template },
      status: { replicas: 3, readyReplicas: 1 },
    });
    assert.deepEqual(printer.cells(rs, NOW), ['web-5d4f8c7b9', 3, 3, 1, '120m', 'nginx,log', 'nginx:1.17,busybox', 'app=web,pod-template-hash=5d4f8c7b9']);
  });

  it('replica set printer prints <none> for an empty selector and <error> for an invalid one', () => {
    const empty = object('apps/v1', 'ReplicaSet', meta('a', MINUTE), { spec: { selector: {}, template } });
    assert.equal(printer.cells(empty, NOW)[7], '<none>');
    assert.deepEqual(printer.cells(empty, NOW).slice(1, 4), [1, 0, 0], 'one replica by default');
    const invalid = object('apps/v1', 'ReplicaSet', meta('a', MINUTE), { spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Like', values: ['x'] }] }, template } });
    assert.equal(printer.cells(invalid, NOW)[7], '<error>');
  });

  it('replica set printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.type, c.priority, c.description]),
      [
        ['Name', 'string', 0, 'ObjectMeta.name'],
        ['Desired', 'integer', 0, 'ReplicaSetSpec.replicas'],
        ['Current', 'integer', 0, 'ReplicaSetStatus.replicas'],
        ['Ready', 'integer', 0, 'ReplicaSetStatus.readyReplicas'],
        ['Age', 'string', 0, 'ObjectMeta.creationTimestamp'],
        ['Containers', 'string', 1, 'Names of each container in the template.'],
        ['Images', 'string', 1, 'Images referenced by each container in the template.'],
        ['Selector', 'string', 1, 'ReplicaSetSpec.selector'],
      ],
    );
  });
});

describe('stateful set printer', () => {
  const printer = statefulSetPrinter(namedDoc);

  it('stateful set printer prints ready/replicas and the containers', () => {
    const sts = object('apps/v1', 'StatefulSet', meta('db', 9 * DAY), { spec: { replicas: 3, serviceName: 'db', template }, status: { replicas: 3, readyReplicas: 3 } });
    assert.deepEqual(printer.cells(sts, NOW), ['db', '3/3', '9d', 'nginx,log', 'nginx:1.17,busybox']);
    assert.equal(printer.cells(object('apps/v1', 'StatefulSet', meta('one', MINUTE), { spec: { template } }), NOW)[1], '0/1', 'one replica by default');
    assert.deepEqual(printer.columns.map((c) => [c.name, c.priority]), [['Name', 0], ['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1]]);
  });
});

describe('job printer', () => {
  const printer = jobPrinter(namedDoc);
  const job = (spec: Record<string, unknown>, status: Record<string, unknown>): ReturnType<typeof object> =>
    object('batch/v1', 'Job', meta('pi', 10 * MINUTE), { spec: { selector: { matchLabels: { 'controller-uid': 'u1' } }, template, ...spec }, status });

  it('job printer prints succeeded/completions and the duration of a completed job', () => {
    const j = job({ completions: 3, parallelism: 1 }, { succeeded: 3, startTime: ago(10 * MINUTE), completionTime: ago(10 * MINUTE - 42 * SECOND) });
    assert.deepEqual(printer.cells(j, NOW), ['pi', '3/3', '42s', '10m', 'nginx,log', 'nginx:1.17,busybox', 'controller-uid=u1']);
  });

  it('job printer measures a running job to now and leaves an unstarted job blank', () => {
    assert.equal(printer.cells(job({ completions: 1 }, { startTime: ago(3 * MINUTE), active: 1 }), NOW)[2], '3m');
    assert.equal(printer.cells(job({ completions: 1 }, {}), NOW)[2], '');
  });

  it('job printer prints n/1 without completions and n/1 of P with parallelism above one', () => {
    assert.equal(printer.cells(job({ parallelism: 1 }, { succeeded: 0 }), NOW)[1], '0/1');
    assert.equal(printer.cells(job({}, {}), NOW)[1], '0/1');
    assert.equal(printer.cells(job({ parallelism: 4 }, { succeeded: 1 }), NOW)[1], '1/1 of 4');
  });

  it('job printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.type, c.priority, c.description]),
      [
        ['Name', 'string', 0, 'ObjectMeta.name'],
        ['Completions', 'string', 0, 'JobStatus.succeeded'],
        ['Duration', 'string', 0, 'Time required to complete the job.'],
        ['Age', 'string', 0, 'ObjectMeta.creationTimestamp'],
        ['Containers', 'string', 1, 'Names of each container in the template.'],
        ['Images', 'string', 1, 'Images referenced by each container in the template.'],
        ['Selector', 'string', 1, 'JobSpec.selector'],
      ],
    );
  });
});

describe('cron job printer', () => {
  const printer = cronJobPrinter(namedDoc);

  it('cron job printer prints schedule, suspend, active count and the last schedule', () => {
    const cj = object('batch/v1beta1', 'CronJob', meta('hello', 2 * DAY), {
      spec: { schedule: '*/1 * * * *', suspend: false, jobTemplate: { spec: { template } } },
      status: { active: [{ kind: 'Job', name: 'hello-1590000000' }], lastScheduleTime: ago(45 * SECOND) },
    });
    assert.deepEqual(printer.cells(cj, NOW), ['hello', '*/1 * * * *', 'False', 1, '45s', '2d', 'nginx,log', 'nginx:1.17,busybox', '<none>']);
  });

  it('cron job printer reads an absent suspend as the default False and prints <none> before the first schedule', () => {
    const cj = object('batch/v1beta1', 'CronJob', meta('later', HOUR), { spec: { schedule: '@hourly', jobTemplate: { spec: { template } } } });
    assert.deepEqual(printer.cells(cj, NOW).slice(1, 5), ['@hourly', 'False', 0, '<none>']);
    const suspended = object('batch/v1beta1', 'CronJob', meta('paused', HOUR), { spec: { schedule: '@daily', suspend: true, jobTemplate: { spec: { template } } }, status: {} });
    assert.equal(printer.cells(suspended, NOW)[2], 'True');
  });

  it('cron job printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.type, c.priority, c.description]),
      [
        ['Name', 'string', 0, 'ObjectMeta.name'],
        ['Schedule', 'string', 0, 'CronJobSpec.schedule'],
        ['Suspend', 'boolean', 0, 'CronJobSpec.suspend'],
        ['Active', 'integer', 0, 'CronJobStatus.active'],
        ['Last Schedule', 'string', 0, 'CronJobStatus.lastScheduleTime'],
        ['Age', 'string', 0, 'ObjectMeta.creationTimestamp'],
        ['Containers', 'string', 1, 'Names of each container in the template.'],
        ['Images', 'string', 1, 'Images referenced by each container in the template.'],
        ['Selector', 'string', 1, 'JobSpec.selector'],
      ],
    );
  });
});
