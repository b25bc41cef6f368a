import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { podNamespaceName, siteCgroupParent, siteNamespaceName } from '../../src/site-agent/runtimes/runc/index.js';
import { removeSiteNetwork, removeSitesCgroupParent } from '../../src/testing/runc-site-cleanup.js';
import { kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';
import { dnsProbe, httpProbe } from './support/network-probes.js';
import { EDGEPLANE_BIN, startServer, type ServerProcess } from './support/server-process.js';
import { deploymentYaml, HTTP_SERVER, runIn, serviceYaml } from './support/service-workloads.js';
import { waitFor } from './support/wait-for.js';
import { apiCaller, type ApiCall } from './support/workload-identity-env.js';

const SITE = 'ce-off';
const SECRET_VALUE = 'offline-secret-value-4711';
const VK8S = '/api/vk8s/namespaces/default/vk1';

interface Pod extends KubeObject {
  status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> };
}
const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** The processes in the cgroups of a pod's container (every start of it; default `c`, the workload). */
function workloadPids(netns: string, uid: string, container = 'c'): string[] {
  const podCgroup = join('/sys/fs/cgroup/memory', siteCgroupParent(netns), uid);
  if (!existsSync(podCgroup)) return [];
  return readdirSync(podCgroup, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith(`${container}-`))
    .flatMap((e) => readFileSync(join(podCgroup, e.name, 'cgroup.procs'), 'utf8').split('\n').filter((pid) => pid !== ''))
    .sort();
}

/** Every process in the site's pod cgroups. */
function sitePids(netns: string): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    if (!existsSync(dir)) return;
    found.push(...readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter((pid) => pid !== ''));
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(join(dir, entry.name));
  };
  visit(join('/sys/fs/cgroup/memory', siteCgroupParent(netns)));
  return found;
}

/** The processes whose command line names `dir`: what this test's agents started (conmon, HAProxy, dnsmasq, brokers). */
function processesNaming(dir: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function killAll(pids: readonly (number | string)[]): void {
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Offline restart (issue 31): an `edgeplane server` process and a runc site agent process; the
 * server stops, the agent restarts while it is down (and again as after a reboot, its pods'
 * processes killed too), and the site keeps (or brings back) its pods and Services from the
 * state it persisted; when the server returns nothing restarts.
 */
describe('a runc site restarted while the control plane is unreachable', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-offline-'));
  const serverHome = join(root, 'server');
  const home = join(root, 'agent');
  const netns = siteNamespaceName(home, SITE);
  let server: ServerProcess | undefined;
  let port = 0;
  let agent: ChildProcess | undefined;
  let agentLog = '';
  let call: ApiCall;
  let kubeconfig = '';
  let clientNetns = '';
  let clusterIP = '';
  let nameserver = '';
  let webUids: string[] = [];
  let allUids: string[] = [];

  const startAgent = async (token?: string): Promise<void> => {
    const args = [EDGEPLANE_BIN, 'site', '--name', SITE, '--type', 'CUSTOMER_EDGE', '--labels', 'edge=true', '--nodes', '1', '--cpu', '8', '--memory', '16Gi'];
    args.push('--runtime', 'runc', '--host-image', '--home', home, '--heartbeat-seconds', '1', '--log-level', 'info', '--log-format', 'json');
    const child = spawn(process.execPath, args, { env: { ...process.env, ...(token === undefined ? {} : { EDGEPLANE_REGISTRATION_TOKEN: token }) }, stdio: ['ignore', 'pipe', 'pipe'] });
    agent = child;
    let own = '';
    const keep = (chunk: Buffer): void => {
      own = (own + chunk.toString()).slice(-400_000);
      agentLog = (agentLog + chunk.toString()).slice(-400_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    await waitFor('the site agent running', () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the site agent exited (${child.exitCode ?? child.signalCode}):\n${own.slice(-4000)}`);
      return Promise.resolve(own.includes('"msg":"site agent running"') ? true : undefined);
    }, { timeoutMs: 60_000, intervalMs: 100 });
  };
  const stopAgent = async (signal: NodeJS.Signals): Promise<void> => {
    const child = agent;
    agent = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  };
  const kubectl = async (args: readonly string[], input?: string): Promise<string> => {
    const ran = await runKubectl(kubectlNewest(), args, { kubeconfig, cacheDir: join(root, 'kube-cache'), ...(input === undefined ? {} : { input }) });
    assert.equal(ran.status, 0, `kubectl ${args.join(' ')}: ${ran.stderr}${ran.stdout}`);
    return ran.stdout;
  };
  const pods = async (): Promise<Pod[]> => {
    const answer = await call('GET', `${VK8S}/api/v1/namespaces/default/pods`);
    assert.equal(answer.status, 200, answer.body);
    return answer.json<{ items: Pod[] }>().items.filter((p) => p.metadata.deletionTimestamp === undefined);
  };
  /** The web Service answers by ClusterIP and its name resolves, from the client pod (or, `nameOnly`, from the site: the client's netns). */
  const serviceAnswers = async (what: string, nameOnly = false): Promise<void> => {
    if (!nameOnly) {
      await waitFor(`${what}: the Service answers by ClusterIP`, async () => {
        const ran = await runIn(clientNetns, process.execPath, ['-e', httpProbe(`http://${clusterIP}/`)]);
        return ran.stdout.includes('"pod":"web-') ? true : undefined;
      }, { timeoutMs: 30_000, intervalMs: 250, describe: () => agentLog.slice(-3000) });
    }
    await waitFor(`${what}: the Service's name resolves`, async () => {
      const ran = await runIn(clientNetns, process.execPath, ['-e', dnsProbe(nameserver, 'web.default.svc.cluster.local')]);
      return ran.stdout.trim() === clusterIP ? true : undefined;
    }, { timeoutMs: 30_000, intervalMs: 250 });
  };
  const webPids = (): string[] => webUids.flatMap((uid) => workloadPids(netns, uid)).sort();

  before(async () => {
    assert.equal(process.getuid?.(), 0, 'the runc runtime tests need root');
    chmodSync(root, 0o711);
    mkdirSync(home, { mode: 0o711 });
    server = await startServer(serverHome, ['--log-format', 'json']);
    port = Number(new URL(server.url).port);
    const ca = readFileSync(join(serverHome, 'pki', 'ca.crt'), 'utf8');
    call = apiCaller(server.url, ca, readFileSync(join(serverHome, 'api-token'), 'utf8').trim());
    const post = async (path: string, body: unknown): Promise<{ json<T>(): T }> => {
      const answer = await call('POST', path, { body });
      assert.equal(answer.status, 200, `${path}: ${answer.body}`);
      return answer;
    };
    await post('/api/config/namespaces/default/virtual_sites', { metadata: { name: 'edge' }, spec: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['edge'] } } });
    await post('/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: { vsite_refs: [{ namespace: 'default', name: 'edge' }] } });
    const credential = await post('/api/web/namespaces/system/api_credentials', {
      name: 'kube-vk1', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' },
    });
    kubeconfig = join(root, 'kubeconfig');
    writeFileSync(kubeconfig, Buffer.from(credential.json<{ data: string }>().data, 'base64'), { mode: 0o600 });
    const token = (await post('/api/sites/v1/tokens', { type: 'CUSTOMER_EDGE', ttl_seconds: 600 })).json<{ token: string }>().token;
    await startAgent(token);

    const placed = `annotations: {svc.io/sites: "system/${SITE}"}`;
    await kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Secret\nmetadata: {name: db, ${placed}}\nstringData: {password: ${SECRET_VALUE}}\n`);
    const volumes = '      volumes:\n      - {name: db, secret: {secretName: db}}\n';
    const mounts = '        volumeMounts:\n        - {name: db, mountPath: /db}\n';
    await kubectl(['apply', '-f', '-'], deploymentYaml('web', HTTP_SERVER, { site: SITE, volumes, mounts }));
    await kubectl(['apply', '-f', '-'], deploymentYaml('client', 'setInterval(()=>{},1e9)', { site: SITE, replicas: 1 }));
    await kubectl(['apply', '-f', '-'], serviceYaml('web', { app: 'web', site: SITE, ports: [{ name: 'http', port: 80, targetPort: 8080 }] }));
    const ready = await waitFor('three pods ready', async () => {
      const all = await pods();
      return all.length === 3 && all.every(isReady) ? all : undefined;
    }, { timeoutMs: 90_000, intervalMs: 500 });
    allUids = ready.map((p) => p.metadata.uid ?? '').sort();
    webUids = ready.filter((p) => p.metadata.name?.startsWith('web-') === true).map((p) => p.metadata.uid ?? '');
    clientNetns = podNamespaceName(netns, ready.find((p) => p.metadata.name?.startsWith('client-') === true)?.metadata.uid ?? '');
    const service = await call('GET', `${VK8S}/api/v1/namespaces/default/services/web`);
    clusterIP = service.json<{ spec: { clusterIP: string } }>().spec.clusterIP;
    nameserver = /nameserver\s+(\S+)/.exec(await kubectl(['exec', 'deploy/client', '-c', 'c', '--', 'cat', '/etc/resolv.conf']))?.[1] ?? '';
    await serviceAnswers('online');
  });

  after(async () => {
    if (process.env['EDGEPLANE_TEST_AGENT_LOG'] !== undefined) writeFileSync(process.env['EDGEPLANE_TEST_AGENT_LOG'], agentLog);
    await stopAgent('SIGTERM');
    killAll(processesNaming(root));
    killAll(sitePids(netns));
    await server?.stop('SIGKILL');
    await removeSiteNetwork(home, SITE);
    await removeSitesCgroupParent();
    rmSync(root, { recursive: true, force: true });
  });

  it('persists what the control plane sent, private and sealed: no Secret value on disk', async () => {
    const dir = join(home, 'offline');
    await waitFor('the persisted state', () => Promise.resolve(['pods', 'objects-secrets', 'objects-services', 'objects-endpoints', 'identity-tokens'].every((n) => existsSync(join(dir, `${n}.sealed`))) ? true : undefined), { timeoutMs: 20_000 });
    // What the last changes wrote (writes are coalesced for 2 s).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const stat = (path: string): number => statSync(path).mode & 0o777;
    assert.equal(stat(dir), 0o700);
    for (const name of readdirSync(dir)) {
      assert.equal(stat(join(dir, name)), 0o600, name);
      const bytes = readFileSync(join(dir, name));
      assert.ok(!bytes.includes(SECRET_VALUE) && !bytes.includes(Buffer.from(SECRET_VALUE).toString('base64')), `${name} holds the Secret's value`);
    }
  });

  it('an agent restarted while the server is down keeps its pods (same processes) and its Service answers by ClusterIP and name', async () => {
    const before = webPids();
    assert.equal(before.length >= 2, true, `web processes: ${before.join(' ')}`);
    await server?.stop('SIGKILL');
    await stopAgent('SIGKILL');
    await startAgent();
    await waitFor('the persisted pods running', () => Promise.resolve(agentLog.includes('running the persisted pods') ? true : undefined), { timeoutMs: 30_000 });
    await serviceAnswers('restarted offline');
    assert.deepEqual(webPids(), before, 'a web pod was restarted');
  });

  it('after a machine-like restart (the pods\' processes killed too) the pods\' sandboxes come back offline from the persisted specs', async () => {
    await stopAgent('SIGKILL');
    const killed = [...processesNaming(root), ...sitePids(netns)];
    killAll(killed);
    await waitFor('the pods\' processes gone', () => Promise.resolve(webPids().length === 0 ? true : undefined), { timeoutMs: 20_000 });
    await startAgent();
    // The pods' sandboxes and sidecars again, from the persisted specs. Their workloads wait for the sidecars' identities: the
    // identity volume is memory-backed, so a rebooted pod's sidecar bootstraps again, which takes the control plane (docs/RUNTIME.md).
    await waitFor('the pods\' sidecars running again', () => Promise.resolve(allUids.every((uid) => workloadPids(netns, uid, 'edgeplane-sidecar').length > 0) ? true : undefined), {
      timeoutMs: 60_000,
      describe: () => containerLogs(join(home, 'runc', SITE, 'pods', webUids[0] ?? '')),
    });
    // The site's name servers again, from the persisted Services.
    await serviceAnswers('rebooted offline', true);
  });

  it('when the server returns, everything reconciles: the same pods, no process restarted', async () => {
    server = await startServer(serverHome, ['--listen', `127.0.0.1:${port}`, '--log-format', 'json']);
    await waitFor('the agent relisted', () => Promise.resolve(agentLog.includes('relist complete') ? true : undefined), { timeoutMs: 60_000, describe: () => agentLog.slice(-3000) });
    await waitFor('the web pods running again', () => Promise.resolve(webUids.every((uid) => workloadPids(netns, uid).length > 0) ? true : undefined), {
      timeoutMs: 60_000,
      describe: () => containerLogs(join(home, 'runc', SITE, 'pods', webUids[0] ?? '')),
    });
    await serviceAnswers('reconnected');
    const before = webPids();
    // A few heartbeats and resyncs later.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    assert.deepEqual((await pods()).map((p) => p.metadata.uid ?? '').sort(), allUids, 'a pod was recreated');
    assert.deepEqual(webPids(), before, 'a web pod was restarted after the server returned');
  });
});


/** The tails of the container logs below a pod's folder (what a failing wait shows). */
function containerLogs(dir: string): string {
  const found: string[] = [];
  const visit = (path: string, depth: number): void => {
    if (depth > 6 || !existsSync(path)) return;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) visit(child, depth + 1);
      else if (entry.name === 'container.log' || entry.name === 'state.json') found.push(`${child}:\n${readFileSync(child, 'utf8').slice(-1500)}`);
    }
  };
  visit(dir, 0);
  return found.join('\n');
}
