import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { parseTable } from './support/kubectl-matrix.js';
import { startMultisiteEnv, type MultisiteEnv } from './support/multisite-env.js';
import { countBySite, podsPath, siteOf, type Condition, type Pod } from './support/multisite-objects.js';
import { waitFor } from './support/wait-for.js';

type Job = KubeObject & { status?: { succeeded?: number; conditions?: Condition[] } };

const JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox:1.31, command: [echo, hi]}]
`;

const CRONJOB = `apiVersion: batch/v1beta1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "*/1 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: busybox:1.31}]
`;

const STATEFULSET = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: pg
        image: postgres:12
        volumeMounts: [{name: data, mountPath: /var/lib/postgresql/data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

const isComplete = (job: Job | undefined): boolean => job?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true;

/** Jobs, CronJobs (on an injected clock) and StatefulSets across the three sites, through kubectl. */
describe('vK8s batch workloads and StatefulSets across three sites through kubectl', () => {
  let env: MultisiteEnv;
  before(async () => {
    env = await startMultisiteEnv();
  });
  after(async () => {
    await env?.close();
  });

  const job = (name: string): Promise<Job | undefined> => env.read<Job>(`apis/batch/v1/namespaces/default/jobs/${name}`);

  it('a Job with completions 2 completes on each regional edge: 2 succeeded pods per site, the per-site status annotation', async () => {
    const c = env.kubectl;
    await env.apply(c, JOB);
    await env.ok(c, ['wait', '--for=condition=complete', 'job/once', '--timeout=30s']);
    const pods = await env.list<Pod>(podsPath('job-name=once'));
    assert.deepEqual(countBySite(pods), { 're-a': 2, 're-b': 2 });
    assert.ok(pods.every((p) => p.status?.phase === 'Succeeded' && p.spec.nodeName === `${siteOf(p)}-n0`));
    const done = await job('once');
    assert.equal(done?.status?.succeeded, 4);
    const perSite = JSON.parse(done?.metadata.annotations?.['svc.io/site-status'] ?? '{}') as Record<string, { succeeded?: number; condition?: string }>;
    assert.deepEqual(Object.entries(perSite).map(([site, s]) => [site, s.succeeded, s.condition]), [['re-a', 2, 'Complete'], ['re-b', 2, 'Complete']]);
    for (const client of env.clients) {
      const rows = parseTable(await env.ok(client, ['get', 'pods', '-l', 'job-name=once']));
      assert.deepEqual(rows.map((r) => r['STATUS']), ['Completed', 'Completed', 'Completed', 'Completed'], client.label);
    }
  });

  it('a CronJob every minute starts its Job when the injected clock reaches the minute, and the Job completes on each site', async () => {
    const c = env.kubectl;
    await env.apply(c, CRONJOB);
    // Jump just past the next minute: the controller sleeps until then on timers that follow the clock.
    const now = env.clock.now().getTime();
    const minute = Math.ceil((now + 1000) / 60_000) * 60_000;
    env.clock.advance(minute - now + 100);
    const first = `tick-${minute / 60_000}`;
    await waitFor(`Job ${first} complete`, async () => (isComplete(await job(first)) ? true : undefined), { timeoutMs: 15_000 });
    assert.deepEqual(countBySite(await env.list<Pod>(podsPath(`job-name=${first}`))), { 're-a': 1, 're-b': 1 });
    const cronJob = await env.json<KubeObject & { status?: { lastScheduleTime?: string } }>(c, ['get', 'cronjob', 'tick']);
    assert.equal(cronJob.status?.lastScheduleTime, new Date(minute).toISOString().replace('.000Z', 'Z'));

    // A minute later on the injected clock: the next run.
    env.clock.advance(60_000);
    const second = `tick-${minute / 60_000 + 1}`;
    await waitFor(`Job ${second} complete`, async () => (isComplete(await job(second)) ? true : undefined), { timeoutMs: 15_000 });
    const jobs = parseTable(await env.ok(c, ['get', 'jobs']));
    assert.deepEqual(jobs.map((r) => r['NAME']).filter((n) => n?.startsWith('tick-')), [first, second]);
    await env.ok(c, ['delete', 'cronjob', 'tick', '--wait=false']);
  });

  it('a StatefulSet with a volumeClaimTemplate runs <sts>-<site>-<n> on each site, each pod with its Bound claim', async () => {
    const c = env.kubectl;
    await env.apply(c, STATEFULSET);
    await env.settled('app=db', { 're-a': 2, 're-b': 2 });
    assert.match(await env.ok(c, ['rollout', 'status', 'statefulset/db', '--timeout=30s']), /complete|roll out complete/i);
    const pods = parseTable(await env.ok(c, ['get', 'pods', '-l', 'app=db', '-o', 'wide']));
    assert.deepEqual(pods.map((r) => [r['NAME'], r['NODE']]), [
      ['db-re-a-0', 're-a-n0'],
      ['db-re-a-1', 're-a-n0'],
      ['db-re-b-0', 're-b-n0'],
      ['db-re-b-1', 're-b-n0'],
    ]);
    const claims = await waitFor('four Bound claims', async () => {
      const rows = parseTable(await env.ok(c, ['get', 'pvc']));
      return rows.length === 4 && rows.every((r) => r['STATUS'] === 'Bound') ? rows : undefined;
    });
    assert.deepEqual(claims.map((r) => [r['NAME'], r['CAPACITY'], r['ACCESS MODES']]), [
      ['data-db-re-a-0', '1Gi', 'RWO'],
      ['data-db-re-a-1', '1Gi', 'RWO'],
      ['data-db-re-b-0', '1Gi', 'RWO'],
      ['data-db-re-b-1', '1Gi', 'RWO'],
    ]);
    const pvcs = await env.list(`api/v1/namespaces/default/persistentvolumeclaims`);
    assert.deepEqual(countBySite(pvcs), { 're-a': 2, 're-b': 2 });
  });
});
