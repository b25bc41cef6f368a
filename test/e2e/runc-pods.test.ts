import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busyboxImageSpec, writeOciLayout } from '../../src/testing/oci-image-builder.js';
import { Quantity } from '../../src/apimachinery/quantity/quantity.js';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { toolPath } from '../../src/testing/tools.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

interface Pod extends KubeObject {
  spec: { nodeName?: string; containers: Array<{ name: string }> };
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ name: string; ready: boolean; restartCount: number; state: Record<string, Record<string, unknown>>; lastState: Record<string, Record<string, unknown>> }> };
}

const EDGEPLANE = fileURLToPath(new URL('../../../bin/edgeplane.js', import.meta.url));
const SERVER = "require('http').createServer((q,s)=>s.end('hello from '+require('os').hostname())).listen(8080)";

/** A Deployment of one pod whose container runs `command` on the host image. */
function deploymentYaml(name: string, command: readonly string[], o: { annotations?: Record<string, string>; resources?: string; image?: string; extra?: string } = {}): string {
  const annotations = Object.entries({ 'svc.io/sites': 'system/ce-a', ...o.annotations }).map(([k, v]) => `${k}: "${v}"`).join(', ');
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {${annotations}}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: c
        image: ${o.image ?? 'host'}
        command: ${JSON.stringify(command)}
${o.resources ?? ''}${o.extra ?? ''}`;
}

const isReady = (pod: Pod | undefined): boolean => pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe('real pods on a runc site', () => {
  let env: RuncSiteEnv;
  let netnsBefore: number;
  before(async () => {
    netnsBefore = readdirSync('/var/run/netns').length;
    env = await startRuncSiteEnv([
      { name: 'ce-a', hostImage: true },
      { name: 'ce-b', hostImage: false },
    ]);
  });
  after(async () => {
    await env?.close();
  });

  /** The one live pod of Deployment `app`. */
  const pod = async (app: string): Promise<Pod | undefined> =>
    (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items.find((p) => p.metadata.deletionTimestamp === undefined);

  it('runs a pod that serves on its pod IP, reachable from the site network', async () => {
    await env.ok(['apply', '-f', '-'], deploymentYaml('web1', ['node', '-e', SERVER]));
    const ready = await waitFor('web1 Ready', async () => {
      const p = await pod('web1');
      return isReady(p) ? p : undefined;
    }, { timeoutMs: 30_000, describe: async () => JSON.stringify((await pod('web1'))?.status) });
    const ip = ready.status?.podIP ?? '';
    assert.match(ip, /^10\.244\.\d+\.\d+$/);
    const answer = await waitFor('the server answers', () => {
      try {
        return Promise.resolve(execFileSync(toolPath('ip'), ['netns', 'exec', env.netns('ce-a'), 'curl', '-s', '--max-time', '2', `http://${ip}:8080/`], { encoding: 'utf8' }));
      } catch {
        return Promise.resolve(undefined);
      }
    });
    assert.equal(answer, `hello from ${ready.metadata.name ?? ''}`);
  });

  it('restarts a crashing container with growing back-off', async () => {
    await env.ok(['apply', '-f', '-'], deploymentYaml('crash', ['sh', '-c', 'echo dying; exit 3']));
    const looping = await waitFor('crash in CrashLoopBackOff', async () => {
      const p = await pod('crash');
      const s = p?.status?.containerStatuses?.[0];
      return s?.state['waiting']?.['reason'] === 'CrashLoopBackOff' && (s.restartCount ?? 0) >= 1 ? s : undefined;
    }, { timeoutMs: 40_000, describe: async () => JSON.stringify((await pod('crash'))?.status?.containerStatuses) });
    assert.equal(looping.lastState['terminated']?.['exitCode'], 3);
    assert.equal(looping.lastState['terminated']?.['reason'], 'Error');
    assert.match(String(looping.state['waiting']?.['message']), /^back-off 10s restarting failed container=c pod=crash-/);
  });

  it("enforces a flavor's limits through the container's cgroup", async () => {
    await env.ok(['apply', '-f', '-'], deploymentYaml('flavored', ['sleep', '3600'], { annotations: { 'svc.io/workload-flavor': 'tiny' } }));
    const running = await waitFor('flavored running', async () => {
      const p = await pod('flavored');
      return p?.status?.containerStatuses?.[0]?.state['running'] !== undefined ? p : undefined;
    }, { timeoutMs: 30_000 });
    const limits = (running.spec.containers[0] as unknown as { resources: { limits: { cpu: string; memory: string } } }).resources.limits;
    const cgroup = `edgeplane/${env.netns('ce-a')}/${running.metadata.uid ?? ''}/c-0`;
    const memory = Number(readFileSync(`/sys/fs/cgroup/memory/${cgroup}/memory.limit_in_bytes`, 'utf8'));
    const quota = Number(readFileSync(`/sys/fs/cgroup/cpu/${cgroup}/cpu.cfs_quota_us`, 'utf8'));
    assert.equal(memory, Number(Quantity.parse(limits.memory).value()), `memory limit ${limits.memory}`);
    assert.equal(quota, Number(Quantity.parse(limits.cpu).milliValue()) * 100, `cpu limit ${limits.cpu}`);
  });

  it('kills a container over its memory limit and reports OOMKilled', async () => {
    await env.ok(['apply', '-f', '-'], deploymentYaml('hog', ['sh', '-c', 'x=aaaaaaaa; while :; do x=$x$x; done'], { resources: '        resources: {limits: {memory: 32Mi}}\n' }));
    const killed = await waitFor('hog OOMKilled', async () => {
      const s = (await pod('hog'))?.status?.containerStatuses?.[0];
      const t = s?.state['terminated'] ?? s?.lastState['terminated'];
      return t?.['reason'] === 'OOMKilled' ? t : undefined;
    }, { timeoutMs: 30_000, describe: async () => JSON.stringify((await pod('hog'))?.status?.containerStatuses) });
    assert.equal(killed['exitCode'], 137);
  });

  it('an agent restart adopts its running pods: no restart, no second process', async () => {
    const before = await pod('web1');
    const statusBefore = before?.status?.containerStatuses?.[0];
    await env.restartAgent('ce-a');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const afterRestart = await pod('web1');
    const statusAfter = afterRestart?.status?.containerStatuses?.[0];
    assert.equal(afterRestart?.metadata.uid, before?.metadata.uid);
    assert.equal(statusAfter?.restartCount, statusBefore?.restartCount);
    assert.deepEqual(statusAfter?.state, statusBefore?.state);
    assert.ok(isReady(afterRestart));
    // This site's only: other runs on the machine may have servers of their own.
    const siteCgroup = `/edgeplane/${env.netns('ce-a')}/`;
    const servers = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('hello from') && readFileSync(`/proc/${p}/cgroup`, 'utf8').includes(siteCgroup);
      } catch {
        return false;
      }
    });
    assert.equal(servers.length, 1, 'one server process');
  });

  it('runs an imported OCI image by its digest; a site without the image and without --host-image says how to get it', async () => {
    const layout = join(env.dir, 'busybox-layout');
    const built = writeOciLayout(layout, busyboxImageSpec());
    for (const site of ['ce-a', 'ce-b']) {
      const imported = spawnSync(process.execPath, [EDGEPLANE, 'image', 'import', layout, '--name', 'busybox:e2e', '--home', env.home(site)], { encoding: 'utf8' });
      assert.equal(imported.status, 0, imported.stderr);
    }
    await env.ok(['apply', '-f', '-'], deploymentYaml('boxed', ['sh', '-c', 'echo "$GREETING from $(id -u)"; exec sleep 3600'], { image: 'busybox:e2e', annotations: { 'svc.io/sites': 'system/ce-b' } }));
    const running = await waitFor('boxed running', async () => {
      const p = await pod('boxed');
      return p?.status?.containerStatuses?.[0]?.state['running'] !== undefined ? p : undefined;
    }, { timeoutMs: 30_000, describe: async () => JSON.stringify((await pod('boxed'))?.status) });
    const status = running.status?.containerStatuses?.[0] as unknown as { imageID: string };
    assert.equal(status.imageID, `docker.io/library/busybox@${built.manifestDigest}`);
    const log = join(env.home('ce-b'), 'runc', 'ce-b', 'pods', running.metadata.uid ?? '', 'containers', 'c', '0', 'container.log');
    const line = await waitFor('the container wrote its line', () => Promise.resolve(readFileSync(log, 'utf8').split('\n').find((l) => l.includes('from'))));
    assert.match(line, / stdout F hello from 65534$/);

    await env.ok(['apply', '-f', '-'], deploymentYaml('missing', ['true'], { image: 'nowhere:1', annotations: { 'svc.io/sites': 'system/ce-b' } }));
    const waiting = await waitFor('missing image reported', async () => (await pod('missing'))?.status?.containerStatuses?.[0]?.state['waiting']?.['reason'] === 'ErrImageNeverPull' ? (await pod('missing'))?.status?.containerStatuses?.[0] : undefined, { timeoutMs: 30_000 });
    assert.match(String(waiting.state['waiting']?.['message']), /edgeplane image import/);
  });

  it('a readiness probe makes the pod Ready only once it passes; a failing liveness probe restarts the container', async () => {
    // Answers 503 for its first 3 s, then 200.
    const flipping = "const t=Date.now();require('http').createServer((q,s)=>{s.statusCode=Date.now()-t<3000?503:200;s.end()}).listen(8080)";
    await env.ok(['apply', '-f', '-'], deploymentYaml('probed', ['node', '-e', flipping], { extra: '        readinessProbe: {httpGet: {path: /ready, port: 8080}, periodSeconds: 1}\n' }));
    const notReady = await waitFor('probed running', async () => {
      const p = await pod('probed');
      return p?.status?.containerStatuses?.find((c) => c.name === 'c')?.state['running'] !== undefined ? p : undefined;
    }, { timeoutMs: 30_000 });
    assert.equal(isReady(notReady), false, 'not Ready while the probe fails');
    await waitFor('probed Ready', async () => (isReady(await pod('probed')) ? true : undefined), { timeoutMs: 15_000 });

    await env.ok(['apply', '-f', '-'], deploymentYaml('unlive', ['sleep', '3600'], { extra: '        livenessProbe: {tcpSocket: {port: 9999}, periodSeconds: 1, failureThreshold: 2}\n' }));
    const restarted = await waitFor('unlive restarted', async () => {
      const s = (await pod('unlive'))?.status?.containerStatuses?.find((c) => c.name === 'c');
      return (s?.restartCount ?? 0) >= 1 ? s : undefined;
    }, { timeoutMs: 40_000, describe: async () => JSON.stringify((await pod('unlive'))?.status?.containerStatuses) });
    // sleep, pid 1 of its container, ignores SIGTERM: SIGKILL after the pod's 2 s grace period.
    assert.equal(restarted.lastState['terminated']?.['exitCode'], 137);
  });

  it('deleting the pods leaves nothing behind', async () => {
    await env.ok(['delete', 'deployment', 'web1', 'crash', 'flavored', 'hog', 'boxed', 'missing', 'probed', 'unlive']);
    await waitFor('the pods are gone', async () => ((await env.read<{ items: Pod[] }>('api/v1/namespaces/default/pods'))?.items.length === 0 ? true : undefined), { timeoutMs: 30_000 });
    for (const site of ['ce-a', 'ce-b']) await waitFor(`nothing left on ${site}`, () => Promise.resolve(podLeftovers(env, site).length === 0 ? true : undefined), { timeoutMs: 20_000, describe: () => podLeftovers(env, site).join('\n') });
    assert.equal(readdirSync('/var/run/netns').length, netnsBefore + 2, 'only the sites\' namespaces stay');
  });
});
