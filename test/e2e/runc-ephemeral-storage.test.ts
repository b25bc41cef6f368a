import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { busyboxImageSpec, writeOciLayout } from '../../src/testing/oci-image-builder.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

const SITE = 'ce-disk';
const EDGEPLANE = fileURLToPath(new URL('../../../bin/edgeplane.js', import.meta.url));
const IMAGE = 'disk-busybox:1';
const Mi = 1024 * 1024;
/** The containers' log rotation on this site: 1 MiB, 3 files; a flood may hold twice that, 6 MiB. */
const LOGS = { maxSize: Mi, maxFiles: 3 };
/** All pods of the site together. */
const SITE_CAP = 64 * Mi;

interface ContainerStatus {
  name: string;
  restartCount: number;
  state: Record<string, unknown>;
}

interface Pod extends KubeObject {
  status?: { phase?: string; reason?: string; message?: string; containerStatuses?: ContainerStatus[] };
}

interface Event {
  reason?: string;
  type?: string;
  message?: string;
  source?: { component?: string };
  involvedObject?: { name?: string };
}

/** A Deployment of one pod on the site: container `c` runs `script` with `sh -c`; `extra` is more of the container, `volumes` the pod's. */
function deployment(name: string, script: string, o: { image?: string; container?: string; volumes?: string } = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: "system/${SITE}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
${o.volumes === undefined ? '' : `      volumes: ${o.volumes}\n`}      containers:
      - name: c
        image: ${o.image ?? 'host'}
        command: ["sh", "-c", ${JSON.stringify(script)}]
${o.container ?? ''}`;
}

describe('disk limits of pods on a runc site: emptyDir sizeLimit, limits.ephemeral-storage, the site\'s cap, log floods', () => {
  let env: RuncSiteEnv;
  before(async () => {
    const disk = { storageCheckMs: 1000, containerLogs: LOGS, siteEphemeralStorageBytes: SITE_CAP };
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }], { disk });
    const layout = join(env.dir, 'busybox-layout');
    const spec = busyboxImageSpec();
    writeOciLayout(layout, { ...spec, layers: [...spec.layers, ['dd'].map((a) => ({ type: 'symlink' as const, path: `bin/${a}`, target: 'busybox' }))] });
    execFileSync(process.execPath, [EDGEPLANE, 'image', 'import', layout, '--name', IMAGE, '--home', env.home(SITE)]);
  });
  after(async () => {
    if (env === undefined) return;
    await env.ok(['delete', 'deployment', '--all']).catch(() => '');
    await waitFor('pods gone', () => Promise.resolve(env.runtime(SITE).size === 0 ? true : undefined), { timeoutMs: 60_000 }).catch(() => undefined);
    const left = podLeftovers(env, SITE);
    await env.close();
    assert.deepEqual(left, []);
  });

  const podsOf = async (app: string): Promise<Pod[]> => (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items ?? [];
  const eventsOf = async (name: string): Promise<Event[]> => ((await env.read<{ items: Event[] }>('api/v1/namespaces/default/events'))?.items ?? []).filter((e) => e.involvedObject?.name === name);
  const podDir = (pod: Pod): string => join(env.home(SITE), 'runc', SITE, 'pods', pod.metadata.uid ?? '');
  /** The first pod of `app` evicted. */
  const evictedPod = (app: string): Promise<Pod> =>
    waitFor(`${app} evicted`, async () => (await podsOf(app)).find((p) => p.status?.reason === 'Evicted'), {
      timeoutMs: 90_000,
      describe: async () => JSON.stringify((await podsOf(app)).map((p) => p.status)),
    });

  /**
   * What every evicted pod shows: Failed, Evicted, the message (kubelet 1.17's status); a Warning
   * Event from kubelet with it; `Evicted` in kubectl's table; its folder gone from the site.
   */
  async function assertEvicted(pod: Pod, message: string): Promise<void> {
    const name = pod.metadata.name ?? '';
    assert.equal(pod.status?.phase, 'Failed');
    assert.equal(pod.status?.message, message);
    const events = await waitFor(`${name}'s Evicted Event`, async () => {
      const found = (await eventsOf(name)).filter((e) => e.reason === 'Evicted');
      return found.length > 0 ? found : undefined;
    });
    assert.deepEqual(events.map((e) => [e.type, e.message, e.source?.component]), [['Warning', message, 'kubelet']]);
    assert.match(await env.ok(['get', 'pod', name]), new RegExp(`^${name} +0/2 +Evicted +0 `, 'm'));
    assert.equal(pod.status?.containerStatuses, undefined, 'kubelet 1.17 leaves no container statuses on an evicted pod');
    await waitFor(`${name}'s folder removed from the site`, () => Promise.resolve(existsSync(podDir(pod)) ? undefined : true));
  }

  it('evicts a pod writing 50 MB into an emptyDir of sizeLimit 10Mi, and one whose writable layer passes limits.ephemeral-storage 10Mi; a pod within its limits keeps running', async () => {
    await env.ok(['apply', '-f', '-'], [
      deployment('fills-dir', 'dd if=/dev/zero of=/data/big bs=1048576 count=50; sleep 3600', { volumes: '[{name: data, emptyDir: {sizeLimit: 10Mi}}]', container: '        volumeMounts: [{name: data, mountPath: /data}]\n' }),
      deployment('fills-layer', 'dd if=/dev/zero of=/tmp/big bs=1048576 count=50; sleep 3600', { image: IMAGE, container: '        resources: {limits: {ephemeral-storage: 10Mi}}\n' }),
      deployment('within', 'dd if=/dev/zero of=/data/some bs=1048576 count=2; dd if=/dev/zero of=/tmp/some bs=1048576 count=2; sleep 3600', {
        image: IMAGE,
        volumes: '[{name: data, emptyDir: {sizeLimit: 10Mi}}]',
        container: '        volumeMounts: [{name: data, mountPath: /data}]\n        resources: {limits: {ephemeral-storage: 20Mi}}\n',
      }),
    ].join('---\n'));
    const dir = await evictedPod('fills-dir');
    await assertEvicted(dir, 'Usage of EmptyDir volume "data" exceeds the limit "10Mi". ');
    const layer = await evictedPod('fills-layer');
    await assertEvicted(layer, 'Pod ephemeral local storage usage exceeds the total limit of containers 10Mi. ');
    // The control: several checks later it still runs, never restarted, never evicted.
    const within = await waitFor('within running', async () => (await podsOf('within')).find((p) => p.status?.containerStatuses?.find((c) => c.name === 'c')?.state['running'] !== undefined));
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const later = (await podsOf('within')).find((p) => p.metadata.uid === within.metadata.uid);
    assert.equal(later?.status?.phase, 'Running');
    assert.equal(later?.status?.containerStatuses?.find((c) => c.name === 'c')?.restartCount, 0);
    assert.deepEqual((await eventsOf(within.metadata.name ?? '')).filter((e) => e.reason === 'Evicted'), []);
    await env.ok(['delete', 'deployment', 'fills-dir', 'fills-layer']);
  });

  it('holds a log flood (yes at full speed) within twice the rotation cap: 2 × 1 MiB × 3 files', async (t) => {
    await env.ok(['apply', '-f', '-'], deployment('flood', 'yes'));
    const pod = await waitFor('flood running', async () => (await podsOf('flood')).find((p) => p.status?.containerStatuses?.find((c) => c.name === 'c')?.state['running'] !== undefined));
    const logs = join(podDir(pod), 'containers', 'c', '0');
    const bytes = (): { total: number; rotated: number } => {
      let total = 0;
      let rotated = 0;
      for (const name of readdirSync(logs).filter((n) => n.startsWith('container.log'))) {
        total += statSync(join(logs, name), { throwIfNoEntry: false })?.size ?? 0;
        if (/^container\.log\.\d{8}-\d{6}/.test(name)) rotated++;
      }
      return { total, rotated };
    };
    // At least 3 s of flood, and until the agent has rotated the log (at its 10 s resync) and the flood went on after.
    let most = 0;
    let rotatedSeen = 0;
    const start = Date.now();
    let rotatedAt: number | undefined;
    while (Date.now() < start + 3000 || rotatedAt === undefined || Date.now() < rotatedAt + 2000) {
      assert.ok(Date.now() < start + 60_000, `no rotation by the agent in a minute (${most} bytes at most)`);
      const seen = bytes();
      most = Math.max(most, seen.total);
      rotatedSeen = Math.max(rotatedSeen, seen.rotated);
      if (seen.rotated > 0) rotatedAt ??= Date.now();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    t.diagnostic(`a yes flood held ${most} bytes of logs at most in ${Date.now() - start} ms (bound ${2 * LOGS.maxSize * LOGS.maxFiles}); ${rotatedSeen} rotated files at most`);
    assert.ok(most <= 2 * LOGS.maxSize * LOGS.maxFiles, `the log held ${most} bytes`);
    assert.ok(most > LOGS.maxSize, 'the flood filled the log');
    // The flooded log still reads.
    assert.equal(await env.ok(['logs', pod.metadata.name ?? '', '-c', 'c', '--tail=2']), 'y\ny\n');
    await env.ok(['delete', 'deployment', 'flood']);
  });

  it('evicts the pod kubelet would pick when the site\'s pods together pass the site\'s cap', async () => {
    await env.ok(['apply', '-f', '-'], deployment('hog', 'dd if=/dev/zero of=/data/big bs=1048576 count=80; sleep 3600', { volumes: '[{name: data, emptyDir: {}}]', container: '        volumeMounts: [{name: data, mountPath: /data}]\n' }));
    const hog = await evictedPod('hog');
    assert.match(hog.status?.message ?? '', /^The node was low on resource: ephemeral-storage\. Container c was using \d+(Ki|Mi)?, which exceeds its request of 0\. $/);
    await assertEvicted(hog, hog.status?.message ?? '');
    const within = (await podsOf('within'))[0];
    assert.equal(within?.status?.phase, 'Running', 'the pod within its limits, the smaller one, stays');
    await env.ok(['delete', 'deployment', 'hog']);
  });
});
