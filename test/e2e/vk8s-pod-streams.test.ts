import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import WebSocket from 'ws';
import { parse } from 'yaml';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import { eventually } from '../../src/store/testing/watch-helpers.js';
import type { RequestScope } from '../../src/registry/generic-store.js';
import { findResource } from '../../src/vk8s/resources.js';
import { NoRunningContainersBackend } from '../../src/vk8s/streams/testing/no-running-containers-backend.js';
import { startKubectlPortForward } from '../../src/vk8s/streams/testing/kubectl-processes.js';
import { ScriptedPodBackend } from '../../src/vk8s/streams/testing/scripted-pod-backend.js';
import { roundTrip, startEchoServer } from '../../src/vk8s/streams/testing/tcp-echo.js';
import type { PodStreamBackend } from '../../src/vk8s/streams/types.js';
import { kubectl120, kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';

const CREDS = '/api/web/namespaces/system/api_credentials';
const PODS = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/pods';

/** Whichever backend the test wants now: every call goes to `current`. */
function switchableBackend(initial: PodStreamBackend): PodStreamBackend & { current: PodStreamBackend } {
  return {
    current: initial,
    admit(target, kind) {
      return this.current.admit?.(target, kind) ?? Promise.resolve();
    },
    exec(target, options, io) {
      return this.current.exec(target, options, io);
    },
    attach(target, options, io) {
      return this.current.attach(target, options, io);
    },
    portForward(target, port) {
      return this.current.portForward(target, port);
    },
    logs(target, options) {
      return this.current.logs(target, options);
    },
  };
}

/** A WebSocket exec of `echo hi` on pod p, refused before the handshake: its HTTP code and body. */
function refusedUpgrade(h: ConfigHarness, path: string, auth: { token?: string; cert?: string; key?: string }): Promise<[number | undefined, unknown]> {
  const headers = auth.token === undefined ? {} : { authorization: `Bearer ${auth.token}` };
  const ws = new WebSocket(`${h.url.replace('https', 'wss')}${path}`, ['v4.channel.k8s.io'], { ca: h.ca, headers, ...(auth.cert === undefined ? {} : { cert: auth.cert, key: auth.key }) });
  return new Promise((resolve, reject) => {
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_request, response: IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve([response.statusCode, JSON.parse(body)]));
    });
  });
}

describe('pod streams through the control plane', () => {
  let h: ConfigHarness;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let scripted: ScriptedPodBackend;
  let backend: ReturnType<typeof switchableBackend>;
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-pod-streams-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const env = (label: string): { kubeconfig: string; cacheDir: string } => ({ kubeconfig, cacheDir: join(dir, `cache-${label}`) });
  let old: string;
  let newest: string;

  before(async () => {
    old = kubectl120();
    newest = kubectlNewest();
    echo = await startEchoServer();
    scripted = new ScriptedPodBackend({ 80: echo.port }, ['one', 'two', 'three']);
    backend = switchableBackend(scripted);
    h = await startConfigHarness({ podStreams: backend });
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    const credential = await h.call('POST', CREDS, { body: { name: 'kube-vk1', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } } });
    assert.equal(credential.status, 200, credential.body);
    writeFileSync(kubeconfig, Buffer.from(credential.json<{ data: string }>().data, 'base64'));
    // Users cannot create pods: the platform does, through its own client.
    const pods = h.controlPlane.virtualClusters.storeFor(findResource('', 'v1', 'pods') ?? { group: '', resource: 'pods' });
    assert.ok(pods !== undefined);
    const scope: RequestScope = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' }, dryRun: false, fieldManager: 'test' };
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'site-1', containers: [{ name: 'c', image: 'busybox' }] } };
    pods.strategy.defaults(pod);
    await pods.create(scope, pod);
    const running = { phase: 'Running', containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'busybox', imageID: '', state: { running: { startedAt: '2020-01-01T00:00:00Z' } } }] };
    await pods.update(scope, 'p', (current) => ({ ...current, status: running }), { subresource: 'status' });
  });
  after(async () => {
    await h?.close();
    await echo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl 1.20 execs over SPDY: output and exit codes', async () => {
    const run = await runKubectl(old, ['exec', 'p', '--', 'echo', 'hi', 'there'], env('old'));
    assert.deepEqual([run.status, run.stdout], [0, 'hi there\n'], run.stderr);
    const exit = await runKubectl(old, ['exec', 'p', '--', 'exit', '3'], env('old'));
    assert.equal(exit.status, 3);
    assert.equal(exit.stderr.trim(), 'command terminated with exit code 3');
    const target = scripted.calls.find((c) => c.kind === 'exec')?.target;
    assert.deepEqual({ ...target, uid: undefined }, { tenant: 'acme', namespace: 'default', vk8s: 'vk1', pod: 'p', uid: undefined, container: 'c' });
  });

  it('kubectl 1.20 logs and port-forward', async () => {
    const logs = await runKubectl(old, ['logs', '--tail=2', 'p'], env('old'));
    assert.deepEqual([logs.status, logs.stdout], [0, 'two\nthree\n'], logs.stderr);
    const forward = await startKubectlPortForward(old, 'p', 80, env('old'));
    try {
      const data = Buffer.from('through the control plane');
      assert.ok((await roundTrip(forward.port, data)).equals(data));
    } finally {
      await forward.stop();
    }
  });

  it('the newest kubectl execs over WebSocket', async () => {
    const run = await runKubectl(newest, ['exec', 'p', '--', 'echo', 'hi'], env('newest'));
    assert.deepEqual([run.status, run.stdout], [0, 'hi\n'], run.stderr);
  });

  it('client-node Exec gets output and the status', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const status = await new Promise<V1Status>((resolve, reject) => {
      new Exec(kc).exec('default', 'p', 'c', ['echo', 'hello'], stdout, null, null, false, resolve).catch(reject);
    });
    assert.deepEqual([status.status, text], ['Success', 'hello\n']);
  });

  it('answers like kube before a session: missing pods, other namespaces, bad containers, attach, requests without an upgrade', async () => {
    const auth = { token: h.adminToken };
    const missing = await refusedUpgrade(h, `${PODS}/nope/exec?command=echo&stdout=true`, auth);
    assert.deepEqual([missing[0], (missing[1] as { message: string }).message], [404, 'pods "nope" not found']);
    const elsewhere = await refusedUpgrade(h, '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/kube-system/pods/p/exec?command=echo&stdout=true', auth);
    assert.equal(elsewhere[0], 403);
    assert.match((elsewhere[1] as { message: string }).message, /^pods "p" is forbidden: User ".*" cannot get resource "pods\/exec" in API group "" in the namespace "kube-system": this virtual cluster has only the namespace "default"$/);
    const container = await refusedUpgrade(h, `${PODS}/p/exec?command=echo&stdout=true&container=zz`, auth);
    assert.deepEqual([container[0], (container[1] as { message: string }).message], [400, 'container zz is not valid for pod p']);
    const plain = await h.call('POST', `${PODS}/p/exec?command=ls&stdout=true`);
    assert.deepEqual([plain.status, plain.json()['message']], [400, 'Upgrade request required']);
    // attach is served (issue 22) beyond the seed's list: like exec, it needs an upgrade.
    const attach = await h.call('POST', `${PODS}/p/attach?stdout=true`);
    assert.deepEqual([attach.status, attach.json()['message']], [400, 'Upgrade request required']);
    const version = await new Promise<number | undefined>((resolve) => {
      const ws = new WebSocket(`${h.url.replace('https', 'wss')}/version`, { ca: h.ca });
      ws.on('error', () => undefined);
      ws.on('unexpected-response', (_request, response: IncomingMessage) => resolve(response.statusCode));
    });
    assert.equal(version, 200, 'other upgrade requests are ordinary requests');
  });

  it('refuses other tenants (404), readers and other clusters\' credentials (403)', async () => {
    const exec = `${PODS}/p/exec?command=echo&stdout=true`;
    const tenant = await h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'globex' } });
    const foreign = await refusedUpgrade(h, exec, { token: tenant.json<{ admin_token: string }>().admin_token });
    assert.deepEqual(foreign, [404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 }]);
    const issued = await h.call('POST', CREDS, { body: { name: 'reader', namespace: 'system', expiration_days: 7, spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: 'default', role: 'monitor' }] } } });
    const [code, status] = await refusedUpgrade(h, exec, { token: issued.json<{ data: string }>().data });
    assert.equal(code, 403);
    assert.match((status as { message: string }).message, /^pods "p" is forbidden: User ".*" cannot get resource "pods\/exec" in API group "" in the namespace "default": .*write needs editor/);
    const user = (parse(readFileSync(kubeconfig, 'utf8')) as { users: Array<{ user: Record<string, string> }> }).users[0]?.user ?? {};
    const b64 = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
    const other = await refusedUpgrade(h, '/api/vk8s/namespaces/default/vk2/api/v1/namespaces/default/pods/p/exec?command=echo&stdout=true', { cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) });
    assert.deepEqual([other[0], (other[1] as { message: string }).message], [403, 'virtualclusters "vk2" is forbidden: this credential is for virtual cluster default/vk1']);
  });

  it('with NoRunningContainersBackend (the control plane\'s default), kubectl prints kubelet\'s refusals', async () => {
    backend.current = new NoRunningContainersBackend();
    try {
      for (const [label, binary] of [['old', old], ['newest', newest]] as const) {
        const run = await runKubectl(binary, ['exec', 'p', '--', 'echo'], env(label));
        assert.equal(run.status, 1, label);
        assert.match(run.stderr, /^error: unable to upgrade connection: container not found \("c"\)$/m, `${label}: ${run.stderr}`);
      }
      const logs = await runKubectl(old, ['logs', 'p'], env('old'));
      assert.equal(logs.stderr.trim(), 'Error from server (BadRequest): container "c" in pod "p" is waiting to start: ContainerCreating');
    } finally {
      backend.current = scripted;
    }
  });

  it('stopping the control plane ends the sessions in progress (last: it stops the harness\'s control plane)', async () => {
    const ws = new WebSocket(`${h.url.replace('https', 'wss')}${PODS}/p/exec?command=sleep&stdout=true`, ['v4.channel.k8s.io'], { ca: h.ca, headers: { authorization: `Bearer ${h.adminToken}` } });
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    await new Promise((resolve) => ws.once('open', resolve));
    await eventually(() => scripted.calls.some((c) => c.kind === 'exec' && (c.detail as { command: string[] }).command[0] === 'sleep'), 'the command started');
    await h.controlPlane.close();
    await closed;
    await eventually(() => scripted.abandonedSleeps === 1, 'the backend saw the session end');
  });
});
