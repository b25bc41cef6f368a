import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busyboxImageSpec, writeOciLayout } from '../../src/testing/oci-image-builder.js';
import { Quantity } from '../../src/apimachinery/quantity/quantity.js';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { connect as connectTls } from 'node:tls';
import { toolPath } from '../../src/testing/tools.js';
import { NetnsSocketBroker, podContainerId, podNamespaceName, runcStateRoot } from '../../src/site-agent/runtimes/runc/index.js';
import { sitePidsCeiling } from '../../src/site-agent/host/index.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

interface Pod extends KubeObject {
  spec: { nodeName?: string; containers: Array<{ name: string }> };
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ name: string; ready: boolean; restartCount: number; state: Record<string, Record<string, unknown>>; lastState: Record<string, Record<string, unknown>> }> };
}

/** Runs a program without blocking this process (the control plane and the agents live in it). */
function run(file: string, args: readonly string[], input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
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
  before(async () => {
    env = await startRuncSiteEnv([
      { name: 'ce-a', hostImage: true },
      { name: 'ce-b', hostImage: false },
    ]);
  });
  after(async () => {
    await env?.close();
  });

  /** The Events about one pod, through the virtual cluster. */
  const eventsOf = async (podName: string): Promise<Array<{ reason?: string; type?: string; message?: string; source?: { component?: string } }>> =>
    ((await env.read<{ items: Array<{ reason?: string; type?: string; message?: string; source?: { component?: string }; involvedObject?: { name?: string } }> }>('api/v1/namespaces/default/events'))?.items ?? []).filter((e) => e.involvedObject?.name === podName);
  /** Every pod the tests saw, by uid, with its site (to check that nothing of them stays). */
  const seen = new Map<string, string>();
  /** The one live pod of Deployment `app`. */
  const pod = async (app: string): Promise<Pod | undefined> => {
    const found = (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items.find((p) => p.metadata.deletionTimestamp === undefined);
    if (found !== undefined) seen.set(found.metadata.uid ?? '', found.metadata.labels?.['svc.io/siteName'] ?? '');
    return found;
  };

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
    // kubelet's Events, from the site: the host image said plainly, then Created and Started for both containers.
    const reasons = await waitFor('the pod\'s events', async () => {
      const seenReasons = (await eventsOf(ready.metadata.name ?? '')).map((e) => `${e.reason}:${e.source?.component ?? ''}`);
      return ['HostImage:kubelet', 'Started:kubelet'].every((r) => seenReasons.includes(r)) ? seenReasons : undefined;
    });
    assert.equal(reasons.filter((r) => r === 'Started:kubelet').length, 2, 'the sidecar and the workload started');
    const described = await env.ok(['describe', 'pod', ready.metadata.name ?? '']);
    assert.match(described, /HostImage .*not in the site's image store/);
  });

  it('injects the sidecar: READY 2/2, READY on 127.0.0.1:8070 inside the pod only, the identity read-only at /svc/secrets/identity', async () => {
    const web = (await pod('web1')) as Pod;
    const table = await env.ok(['get', 'pods', '-l', 'app=web1']);
    assert.match(table, / 2\/2 +Running /);
    assert.deepEqual(web.spec.containers.map((c) => c.name), ['c', 'edgeplane-sidecar']);
    const siteNetns = env.netns('ce-a');
    const inPod = podNamespaceName(siteNetns, web.metadata.uid ?? '');
    const ip = toolPath('ip');
    assert.equal(execFileSync(ip, ['netns', 'exec', inPod, 'curl', '-s', 'http://127.0.0.1:8070/status'], { encoding: 'utf8' }), 'READY');
    const runc = (args: readonly string[]): ReturnType<typeof spawnSync> => spawnSync(toolPath('runc'), ['--root', runcStateRoot(siteNetns), 'exec', podContainerId(web.metadata.uid ?? '', 'c-0'), ...args], { encoding: 'utf8' });
    const listed = runc(['ls', '/svc/secrets/identity']);
    assert.equal(listed.status, 0, String(listed.stderr));
    assert.deepEqual(String(listed.stdout).trim().split('\n').sort(), ['client.crt', 'client.key', 'client_ca.crt', 'server.crt', 'server.key', 'server_ca.crt']);
    // No CAP_NET_RAW (ARP and IP forging on the site bridge): containerd's default set without it, as CRI-O ships.
    const status = String(runc(['cat', '/proc/self/status']).stdout);
    const bounding = BigInt(`0x${/^CapBnd:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? 'no CapBnd'}`);
    const defaults = [0, 1, 3, 4, 5, 6, 7, 8, 10, 18, 27, 29, 31].reduce((mask, bit) => mask | (1n << BigInt(bit)), 0n);
    assert.equal(bounding.toString(16), defaults.toString(16), 'CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID SETPCAP NET_BIND_SERVICE SYS_CHROOT MKNOD AUDIT_WRITE SETFCAP');
    // A cgroup namespace of its own: its cgroups are the root of what it sees.
    const cgroups = String(runc(['cat', '/proc/self/cgroup']).stdout).trim().split('\n');
    assert.ok(cgroups.length > 0 && cgroups.every((line) => line.endsWith(':/')), cgroups.join('\n'));
    // The release_agent escape's first step, mounting a cgroup hierarchy, is refused (no CAP_SYS_ADMIN).
    const mounted = runc(['sh', '-c', 'mkdir -p /tmp/cg && mount -t cgroup -o freezer cg /tmp/cg']);
    assert.notEqual(mounted.status, 0, 'a pod cannot mount a cgroup hierarchy');
    assert.match(String(mounted.stderr), /permission denied|Operation not permitted/i);
    const pingGroups = String(runc(['cat', '/proc/sys/net/ipv4/ping_group_range']).stdout);
    assert.equal(pingGroups.trim().split(/\s+/).join(' '), '0 2147483647', 'ping works through ICMP sockets without NET_RAW');
    const write = runc(['touch', '/svc/secrets/identity/x']);
    assert.notEqual(write.status, 0, 'the workload cannot write the identity folder');
    assert.match(String(write.stderr), /Read-only file system/);
    // Another pod of the site reaches web1's server but not its sidecar.
    await env.ok(['apply', '-f', '-'], deploymentYaml('peer', ['sleep', '3600']));
    const other = await waitFor('peer running', async () => {
      const p = await pod('peer');
      return p?.status?.containerStatuses?.find((c) => c.name === 'c')?.state['running'] !== undefined ? p : undefined;
    }, { timeoutMs: 30_000 });
    const fromOther = podNamespaceName(siteNetns, other.metadata.uid ?? '');
    assert.equal(execFileSync(ip, ['netns', 'exec', fromOther, 'curl', '-s', `http://${web.status?.podIP ?? ''}:8080/`], { encoding: 'utf8' }), `hello from ${web.metadata.name ?? ''}`);
    const sidecar = spawnSync(ip, ['netns', 'exec', fromOther, 'curl', '-s', '--max-time', '2', `http://${web.status?.podIP ?? ''}:8070/status`], { encoding: 'utf8' });
    assert.equal(sidecar.status, 7, 'connection refused');
  });

  it('the sidecar unseals, for the pod, a blindfold secret encrypted offline with the CLI under a policy that selects its site', async () => {
    const policy = await env.h.call('POST', '/api/secret_management/namespaces/default/secret_policys', {
      body: { metadata: { name: 'ce-a-only' }, spec: { algo: 'FIRST_MATCH', rules: [{ metadata: { name: 'ce-a' }, spec: { action: 'ALLOW', client_selector: { expressions: ['svc.io/siteName=ce-a'] } } }] } },
    });
    assert.equal(policy.status, 200, policy.body);
    const caFile = join(env.dir, 'ca.crt');
    writeFileSync(caFile, env.h.ca);
    const connection = ['--server', env.h.url, '--token', env.h.adminToken, '--ca-file', caFile];
    // Asynchronous: the control plane and the site's relay run in this process.
    const cli = async (args: readonly string[], input?: string): Promise<string> => {
      const result = await run(process.execPath, [EDGEPLANE, ...args], input);
      assert.equal(result.status, 0, `edgeplane ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    writeFileSync(join(env.dir, 'key.json'), await cli(['secret', 'get-public-key', ...connection]));
    writeFileSync(join(env.dir, 'policy.json'), await cli(['secret', 'get-policy-document', '-n', 'default', '--name', 'ce-a-only', ...connection]));
    const location = (await cli(['secret', 'encrypt', '--public-key', join(env.dir, 'key.json'), '--policy-document', join(env.dir, 'policy.json')], 'open sesame')).trim();
    const web = (await pod('web1')) as Pod;
    const inPod = podNamespaceName(env.netns('ce-a'), web.metadata.uid ?? '');
    const body = JSON.stringify({ type: 'blindfold', location });
    const unsealed = await run(toolPath('ip'), ['netns', 'exec', inPod, 'curl', '-s', '-X', 'POST', '-H', 'content-type: application/json', '--data-binary', body, 'http://127.0.0.1:8070/secret/unseal']);
    assert.equal(Buffer.from(unsealed.stdout, 'base64').toString('utf8'), 'open sesame', unsealed.stdout);
  });

  it('runs init containers in order before the app, and a configMap volume follows its ConfigMap', async () => {
    await env.ok(['apply', '-f', '-'], `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, annotations: {svc.io/sites: system/ce-a}}
data: {greeting: hello}
`);
    await env.ok(['apply', '-f', '-'], deploymentYaml('staged', ['sh', '-c', 'cat /work/order; exec sleep 3600'], {
      extra: `        volumeMounts: [{name: work, mountPath: /work}, {name: settings, mountPath: /settings}]
      initContainers:
      - {name: first, image: host, command: [sh, -c, "echo first >> /work/order"], volumeMounts: [{name: work, mountPath: /work}]}
      - {name: second, image: host, command: [sh, -c, "echo second >> /work/order"], volumeMounts: [{name: work, mountPath: /work}]}
      volumes:
      - {name: work, emptyDir: {}}
      - {name: settings, configMap: {name: settings}}
`,
    }));
    const running = await waitFor('staged running', async () => {
      const p = await pod('staged');
      return p?.status?.containerStatuses?.find((c) => c.name === 'c')?.state['running'] !== undefined ? p : undefined;
    }, { timeoutMs: 30_000, describe: async () => JSON.stringify((await pod('staged'))?.status) });
    const inits = (running.status as { initContainerStatuses?: Array<{ name: string; state: { terminated?: { reason: string } } }> }).initContainerStatuses ?? [];
    assert.deepEqual(inits.map((c) => [c.name, c.state.terminated?.reason]), [['first', 'Completed'], ['second', 'Completed']]);
    const app = (args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> =>
      run(toolPath('runc'), ['--root', runcStateRoot(env.netns('ce-a')), 'exec', podContainerId(running.metadata.uid ?? '', 'c-0'), ...args]);
    assert.equal((await app(['cat', '/work/order'])).stdout, 'first\nsecond\n');
    assert.equal((await app(['cat', '/settings/greeting'])).stdout, 'hello');
    await env.ok(['apply', '-f', '-'], `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, annotations: {svc.io/sites: system/ce-a}}
data: {greeting: bonjour}
`);
    await waitFor('the update reached the volume', async () => ((await app(['cat', '/settings/greeting'])).stdout === 'bonjour' ? true : undefined), { timeoutMs: 40_000, intervalMs: 500 });
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
    // PIDs: the pod's containers together (kubelet's podPidsLimit), the site's pods together below the host's pid_max.
    const pids = (path: string): string => readFileSync(`/sys/fs/cgroup/pids/${path}/pids.max`, 'utf8').trim();
    assert.equal(pids(`edgeplane/${env.netns('ce-a')}/${running.metadata.uid ?? ''}`), '4096');
    const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    assert.equal(pids(`edgeplane/${env.netns('ce-a')}`), String(sitePidsCeiling(pidMax)));
    assert.ok(sitePidsCeiling(pidMax) <= pidMax - 4096);
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
    // The pod's containers' cgroups hold one server: the adopted one (a second start would add c-1).
    const podCgroup = `/sys/fs/cgroup/memory/edgeplane/${env.netns('ce-a')}/${afterRestart?.metadata.uid ?? ''}`;
    const servers = readdirSync(podCgroup, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => readFileSync(join(podCgroup, e.name, 'cgroup.procs'), 'utf8').split('\n').filter((pid) => pid !== ''))
      .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('hello from'));
    assert.equal(servers.length, 1, 'one server process');
  });

  it('runs an imported OCI image by its digest; a site without the image and without --host-image says how to get it', async () => {
    const layout = join(env.dir, 'busybox-layout');
    const built = writeOciLayout(layout, busyboxImageSpec());
    for (const site of ['ce-a', 'ce-b']) {
      const imported = await run(process.execPath, [EDGEPLANE, 'image', 'import', layout, '--name', 'busybox:e2e', '--home', env.home(site)]);
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
    const missing = await waitFor('the ErrImageNeverPull event', async () => (await eventsOf((await pod('missing'))?.metadata.name ?? '')).find((e) => e.reason === 'ErrImageNeverPull'));
    assert.equal(missing.type, 'Warning');
  });

  it('two pods on two sites authenticate each other with their identity files (mutual TLS)', async () => {
    const server = "const fs=require('fs'),d='/svc/secrets/identity/';require('https').createServer({key:fs.readFileSync(d+'server.key'),cert:fs.readFileSync(d+'server.crt'),ca:fs.readFileSync(d+'client_ca.crt'),requestCert:true,rejectUnauthorized:true},(q,s)=>s.end(q.socket.getPeerCertificate().subjectaltname)).listen(8443)";
    await env.ok(['apply', '-f', '-'], deploymentYaml('tls', ['node', '-e', server], { extra: '        readinessProbe: {tcpSocket: {port: 8443}, periodSeconds: 1}\n' }));
    const tls = await waitFor('tls Ready', async () => {
      const p = await pod('tls');
      return isReady(p) ? p : undefined;
    }, { timeoutMs: 30_000, describe: async () => JSON.stringify((await pod('tls'))?.status) });
    // The identity of boxed (on ce-b) as its sidecar wrote it, dialled from ce-a's network (sites' networks are not joined).
    const client = (await pod('boxed')) as Pod;
    const identity = join(env.home('ce-b'), 'runc', 'ce-b', 'pods', client.metadata.uid ?? '', 'volumes', 'kubernetes.io~empty-dir', 'edgeplane-identity');
    const read = (name: string): string => readFileSync(join(identity, name), 'utf8');
    const broker = new NetnsSocketBroker(toolPath('ip'), env.netns('ce-a'));
    try {
      const socket = await broker.dial(tls.status?.podIP ?? '', 8443);
      const answer = await new Promise<string>((resolve, reject) => {
        const secure = connectTls({ socket, servername: `${tls.metadata.name ?? ''}.default`, ca: read('server_ca.crt'), cert: read('client.crt'), key: read('client.key') }, () => secure.write('GET / HTTP/1.0\r\n\r\n'));
        let text = '';
        secure.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text)).on('error', reject);
        socket.resume();
      });
      assert.match(answer, /^HTTP\/1\.1 200/);
      assert.match(answer, new RegExp(`DNS:${client.metadata.name ?? ''}\\.default`));
      assert.match(answer, /URI:spiffe:\/\/[^/]+\/ns\/default\/sa\/default/);
    } finally {
      broker.close();
    }
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
    await env.ok(['delete', 'deployment', 'web1', 'crash', 'flavored', 'hog', 'boxed', 'missing', 'probed', 'unlive', 'tls', 'peer', 'staged']);
    await waitFor('the pods are gone', async () => ((await env.read<{ items: Pod[] }>('api/v1/namespaces/default/pods'))?.items.length === 0 ? true : undefined), { timeoutMs: 30_000 });
    for (const site of ['ce-a', 'ce-b']) await waitFor(`nothing left on ${site}`, () => Promise.resolve(podLeftovers(env, site).length === 0 ? true : undefined), { timeoutMs: 20_000, describe: () => podLeftovers(env, site).join('\n') });
    const namespaces = new Set(readdirSync('/var/run/netns'));
    const left = [...seen].filter(([uid, site]) => namespaces.has(podNamespaceName(env.netns(site), uid)));
    assert.deepEqual(left, [], 'no pod network namespace stays');
    assert.ok(namespaces.has(env.netns('ce-a')) && namespaces.has(env.netns('ce-b')), 'the sites keep theirs');
  });
});
