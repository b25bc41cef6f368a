import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { SIDECAR_CONTAINER_NAME } from '../../src/api/sidecar-injection.js';
import { runcStateRoot, siteNamespaceName } from '../../src/site-agent/runtimes/runc/index.js';
import { removeSiteNetwork, removeSitesCgroupParent } from '../../src/testing/runc-site-cleanup.js';
import { toolPath } from '../../src/testing/tools.js';
import { kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';
import { edgeplane } from './support/cluster-credentials.js';
import { EDGEPLANE_BIN, httpsRequest, startServer, type ServerProcess } from './support/server-process.js';
import { killProcessesNaming } from './support/shared-runc-site.js';
import { waitFor } from './support/wait-for.js';

/**
 * A runc customer edge whose agent is an `edgeplane site` process and whose control plane is an
 * `edgeplane server` process over SQLite, both stopped and started by the test: the site keeps
 * its pods alive through the control plane's absence — crashed containers restarted by their
 * policy with back-off, readiness from its own probes, a Job's pod run to its end — and when the
 * link is back, `kubectl` shows the pods as they are: a pod the control plane marked not Ready
 * while the site was silent is Ready again, without a restart.
 */

const SITE = 'ce-offline';

interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  containerID?: string;
  state: { running?: unknown; terminated?: { exitCode: number; finishedAt: string } };
}
interface Pod extends KubeObject {
  status?: { phase?: string; conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }>; containerStatuses?: ContainerStatus[] };
}
/** What the pod's worker saved on the site (`pod-state.json` in its folder). */
interface SavedRecord {
  record: { containers: Array<{ name: string; ready: boolean; restartCount: number; current: { kind: string; termination?: { exitCode: number } } }> };
  instances: Record<string, { id: string }>;
}

const readyOf = (pod: Pod | undefined): string | undefined => pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
const main = (pod: Pod | undefined): ContainerStatus | undefined => pod?.status?.containerStatuses?.find((c) => c.name === 'c');

function deployment(name: string, command: readonly string[], extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      volumes: [{name: data, emptyDir: {}}]
      containers:
      - name: c
        image: host
        command: ${JSON.stringify(command)}
        volumeMounts: [{name: data, mountPath: /data}]
${extra}`;
}

const JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  backoffLimit: 0
  template:
    metadata: {labels: {app: batch}}
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: host, command: ["sh", "-c", "sleep 12; echo done"]}
`;

describe('a runc site with its control plane gone (real server and agent processes)', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-offline-'));
  // The pods' user namespaces pass through the folders above them.
  chmodSync(root, 0o711);
  const home = join(root, 'server');
  const agentHome = join(root, 'agent');
  const kubeconfig = join(root, 'kubeconfig');
  let server: ServerProcess | undefined;
  let port = 0;
  let agent: ChildProcess | undefined;
  let agentLog = '';
  let ca = '';
  let cert = '';
  let key = '';
  let base = '';

  /** A short lease (the server's --node-monitor-grace-period, kube's flag). */
  const serverEnv = { EDGEPLANE_NODE_MONITOR_GRACE_PERIOD: '5s' };
  const startControlPlane = async (): Promise<void> => {
    server = await startServer(home, port === 0 ? [] : ['--listen', `127.0.0.1:${port}`], serverEnv);
    port = Number(new URL(server.url).port);
  };
  const kubectl = async (args: readonly string[], input?: string): Promise<string> => {
    const result = await runKubectl(kubectlNewest(), args, { kubeconfig, cacheDir: join(root, 'kube-cache'), ...(input === undefined ? {} : { input }) });
    assert.equal(result.status, 0, `kubectl ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  const pods = async (app: string): Promise<Pod[]> => {
    const answer = await httpsRequest(`${base}/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`, ca, { cert, key });
    assert.equal(answer.status, 200, answer.body);
    return answer.json<{ items: Pod[] }>().items;
  };
  const onePod = async (app: string): Promise<Pod | undefined> => (await pods(app))[0];
  /** What the site's worker of the pod last saved, read from the site's disk (the control plane need not answer). */
  const savedPod = (pod: Pod): SavedRecord => JSON.parse(readFileSync(join(agentHome, 'runc', SITE, 'pods', pod.metadata.uid ?? '', 'pod-state.json'), 'utf8')) as SavedRecord;
  const saved = (pod: Pod, name = 'c'): SavedRecord['record']['containers'][number] | undefined => savedPod(pod).record.containers.find((c) => c.name === name);
  const startAgent = async (token?: string): Promise<void> => {
    const args = [
      EDGEPLANE_BIN, 'site', '--name', SITE, '--type', 'CUSTOMER_EDGE', '--labels', 'edge=true', '--nodes', '1', '--cpu', '8', '--memory', '16Gi',
      '--runtime', 'runc', '--host-image', '--home', agentHome, '--heartbeat-seconds', '1', '--log-level', 'info', '--log-format', 'json',
    ];
    const child = spawn(process.execPath, args, { env: { ...process.env, ...(token === undefined ? {} : { EDGEPLANE_REGISTRATION_TOKEN: token }) }, stdio: ['ignore', 'pipe', 'pipe'] });
    agent = child;
    const keep = (chunk: Buffer): void => void (agentLog = (agentLog + chunk.toString()).slice(-1_000_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    await waitFor('the site agent running', () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the site agent exited:\n${agentLog.slice(-4000)}`);
      return Promise.resolve(agentLog.includes('"msg":"site agent running"') ? true : undefined);
    }, { timeoutMs: 60_000, intervalMs: 100 });
  };

  before(async () => {
    assert.equal(process.getuid?.(), 0, 'the runc runtime tests need root');
    await startControlPlane();
    edgeplane(home, ['config', 'create', 'virtual_site', '-n', 'default', '-f', '-'], JSON.stringify({ metadata: { name: 'edge' }, spec: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['edge'] } } }));
    edgeplane(home, ['config', 'create', 'virtual_k8s', '-n', 'default', '-f', '-'], JSON.stringify({ metadata: { name: 'vk1' }, spec: { vsite_refs: [{ namespace: 'default', name: 'edge' }] } }));
    edgeplane(home, ['kubeconfig', '--namespace', 'default', '--vk8s', 'vk1', '--name', 'kc-offline', '--file', kubeconfig]);
    const config = JSON.parse(await kubectl(['config', 'view', '--raw', '-o', 'json'])) as {
      clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
    };
    const pem = (base64: string | undefined): string => Buffer.from(base64 ?? '', 'base64').toString('utf8');
    base = config.clusters[0]?.cluster.server ?? '';
    ca = pem(config.clusters[0]?.cluster['certificate-authority-data']);
    cert = pem(config.users[0]?.user['client-certificate-data']);
    key = pem(config.users[0]?.user['client-key-data']);
    const token = spawnSync(process.execPath, [EDGEPLANE_BIN, 'site', 'token', '--type', 'CUSTOMER_EDGE'], { encoding: 'utf8', env: { ...process.env, EDGEPLANE_HOME: home } });
    assert.equal(token.status, 0, token.stderr);
    await startAgent(token.stdout.trim());
  });

  after(async () => {
    const child = agent;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    }
    killProcessesNaming(root);
    await removeSiteNetwork(agentHome, SITE);
    await removeSitesCgroupParent();
    await server?.stop('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('a serving pod the control plane marked not Ready while its site was silent is Ready again as soon as the site is heard, not restarted', async () => {
    await kubectl(['apply', '-f', '-'], deployment('web', ['sleep', '3600'], '        readinessProbe: {exec: {command: ["true"]}, periodSeconds: 1}\n'));
    const serving = await waitFor('web Ready', async () => {
      const pod = await onePod('web');
      return readyOf(pod) === 'True' ? pod : undefined;
    }, { timeoutMs: 90_000 });
    // The agent stops (SIGSTOP): no heartbeat, no report; the pod keeps running under conmon.
    agent?.kill('SIGSTOP');
    try {
      await waitFor('the control plane to mark web not Ready (the lease expired)', async () => (readyOf(await onePod('web')) === 'False' ? true : undefined), { timeoutMs: 120_000, intervalMs: 500 });
    } finally {
      agent?.kill('SIGCONT');
    }
    const back = Date.now();
    const ready = await waitFor('web Ready again', async () => {
      const pod = await onePod('web');
      return readyOf(pod) === 'True' ? pod : undefined;
    }, { timeoutMs: 60_000, intervalMs: 100 });
    console.log(`web Ready again ${((Date.now() - back) / 1000).toFixed(1)} s after the agent was heard again`);
    assert.equal(ready.metadata.uid, serving.metadata.uid, 'the same pod');
    assert.equal(main(ready)?.restartCount, main(serving)?.restartCount, 'not restarted');
    assert.equal(main(ready)?.containerID, main(serving)?.containerID, 'the same container');
    const reasserted = (): number => agentLog.split('\n').filter((line) => line.includes('the control plane\'s copy of the pod status differs from the site\'s; reported again')).length;
    assert.ok(reasserted() >= 1, 'the site said it again');
    // Its own status back in the watch settles it: no report after report.
    await sleep(3000);
    assert.ok(reasserted() <= 2, `reported again ${reasserted()} times`);
    await kubectl(['delete', 'deployment', 'web', '--wait=false']);
  });

  it('with the control plane down, a crashing container is restarted with back-off, probes decide readiness, a killed sidecar comes back with its identity and a Job\'s pod runs to its end; all reported once it is back', async () => {
    await kubectl(['apply', '-f', '-'], deployment('crash', ['sh', '-c', 'date >> /data/starts; sleep 1; exit 3']));
    await kubectl(['apply', '-f', '-'], deployment('late', ['sh', '-c', 'sleep 15; touch /data/ready; exec sleep 3600'], '        readinessProbe: {exec: {command: ["cat", "/data/ready"]}, periodSeconds: 1}\n'));
    await kubectl(['apply', '-f', '-'], JOB);
    const [crash, late, batch] = await waitFor('crash restarted once, late and batch running', async () => {
      const found = [await onePod('crash'), await onePod('late'), await onePod('batch')];
      const running = main(found[1])?.state.running !== undefined && main(found[2])?.state.running !== undefined;
      return (main(found[0])?.restartCount ?? 0) >= 1 && running ? found : undefined;
    }, { timeoutMs: 90_000, intervalMs: 250 });
    assert.ok(crash !== undefined && late !== undefined && batch !== undefined);
    assert.equal(readyOf(late), 'False', 'late is not ready yet');
    const restartsBefore = saved(crash)?.restartCount ?? 0;

    await server?.stop('SIGKILL');
    const down = Date.now();
    // Seen on the site's disk alone: the crashing container restarted (its back-off: 10 s, 20 s, …),
    // the late pod's probe made it ready, the Job's pod ended with 0.
    await waitFor('crash restarted offline', () => Promise.resolve((saved(crash)?.restartCount ?? 0) > restartsBefore ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 });
    await waitFor('late ready offline', () => Promise.resolve(saved(late)?.ready === true ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 });
    // Its sidecar killed: restarted offline with the last bootstrap token, it resumes from the identity files and is ready again.
    const sidecarRestarts = saved(late, SIDECAR_CONTAINER_NAME)?.restartCount ?? 0;
    const sidecarId = savedPod(late).instances[SIDECAR_CONTAINER_NAME]?.id ?? '';
    const killed = spawnSync(toolPath('runc'), ['--root', runcStateRoot(siteNamespaceName(agentHome, SITE)), 'kill', sidecarId, 'KILL'], { encoding: 'utf8' });
    assert.equal(killed.status, 0, killed.stderr);
    await waitFor('late\'s sidecar restarted and ready offline', () => {
      const sidecar = saved(late, SIDECAR_CONTAINER_NAME);
      return Promise.resolve((sidecar?.restartCount ?? 0) > sidecarRestarts && sidecar?.ready === true && saved(late)?.ready === true ? true : undefined);
    }, { timeoutMs: 60_000, intervalMs: 500 });
    await waitFor('the Job\'s pod done offline', () => {
      const c = saved(batch);
      return Promise.resolve(c?.current.kind === 'terminated' && c.current.termination?.exitCode === 0 ? true : undefined);
    }, { timeoutMs: 60_000, intervalMs: 500 });
    const restartsOffline = (saved(crash)?.restartCount ?? 0) - restartsBefore;
    console.log(`offline for ${((Date.now() - down) / 1000).toFixed(1)} s: crash restarted ${restartsOffline} times`);

    await startControlPlane();
    const back = Date.now();
    await waitFor('the site\'s word reported: late Ready, the Job\'s pod Succeeded, crash\'s restarts counted', async () => {
      const [c, l, b] = [await onePod('crash'), await onePod('late'), await onePod('batch')];
      return readyOf(l) === 'True' && b?.status?.phase === 'Succeeded' && (main(c)?.restartCount ?? 0) >= restartsBefore + restartsOffline ? true : undefined;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    console.log(`reported ${((Date.now() - back) / 1000).toFixed(1)} s after the control plane's restart`);
    const lateNow = await onePod('late');
    assert.equal(lateNow?.metadata.uid, late.metadata.uid);
    assert.equal(main(lateNow)?.restartCount, 0, 'late never restarted');
    const finished = Date.parse(main(await onePod('batch'))?.state.terminated?.finishedAt ?? '');
    assert.ok(finished < back, 'the Job\'s pod ended while the control plane was down');
    await waitFor('the Job complete', async () => {
      const answer = await httpsRequest(`${base}/apis/batch/v1/namespaces/default/jobs/batch`, ca, { cert, key });
      return answer.json<{ status?: { succeeded?: number } }>().status?.succeeded === 1 ? true : undefined;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    for (const name of ['crash', 'late']) await kubectl(['delete', 'deployment', name, '--wait=false']);
    await kubectl(['delete', 'job', 'batch', '--wait=false']);
  });
});
