import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import { eventually } from '../../src/store/testing/watch-helpers.js';
import type { RequestScope } from '../../src/registry/generic-store.js';
import { findResource } from '../../src/vk8s/resources.js';
import type { AuditEvent } from '../../src/vk8s/audit/audit-event.js';
import { runKubectlWithInput, startKubectlPortForward } from '../../src/vk8s/streams/testing/kubectl-processes.js';
import { ScriptedPodBackend } from '../../src/vk8s/streams/testing/scripted-pod-backend.js';
import { roundTrip, startEchoServer } from '../../src/vk8s/streams/testing/tcp-echo.js';
import { kubectl120, kubectlNewest } from '../../src/vk8s/testing/kubectl.js';

const CREDS = '/api/web/namespaces/system/api_credentials';
const PODS = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/pods';
/** What the tests send through sessions: it must never reach the audit log. */
const SECRET = 'correct-horse-battery-staple-4711';

/** An SPDY/3.1 upgrade request refused before the switch: its HTTP code and body. */
function spdyUpgrade(h: ConfigHarness, path: string, token: string, protocol: string): Promise<[number | undefined, string]> {
  const url = new URL(`${h.url}${path}`);
  return new Promise((resolve, reject) => {
    const request = httpsRequest({
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      ca: h.ca,
      headers: { authorization: `Bearer ${token}`, connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': protocol },
    });
    request.on('upgrade', () => reject(new Error('the upgrade was accepted')));
    request.on('response', (response: IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve([response.statusCode, body]));
    });
    request.on('error', reject);
    request.end();
  });
}

/** A WebSocket upgrade request refused before the handshake: its HTTP code and body. */
function webSocketUpgrade(h: ConfigHarness, path: string, token: string | undefined, protocol: string): Promise<[number | undefined, string]> {
  const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const ws = new WebSocket(`${h.url.replace('https', 'wss')}${path}`, [protocol], { ca: h.ca, headers });
  return new Promise((resolve, reject) => {
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_request, response: IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve([response.statusCode, body]));
    });
  });
}

describe('audit of pod sessions', () => {
  let h: ConfigHarness;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let scripted: ScriptedPodBackend;
  let monitorToken: string;
  let auditLog: string;
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-session-audit-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const env = (label: string): { kubeconfig: string; cacheDir: string } => ({ kubeconfig, cacheDir: join(dir, `cache-${label}`) });
  const events = (): AuditEvent[] =>
    existsSync(auditLog)
      ? readFileSync(auditLog, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as AuditEvent)
      : [];

  before(async () => {
    echo = await startEchoServer();
    scripted = new ScriptedPodBackend({ 80: echo.port });
    h = await startConfigHarness({ podStreams: scripted });
    auditLog = join(h.home, 'audit', 'sessions.log');
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    const credential = await h.call('POST', CREDS, { body: { name: 'kube-vk1', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } } });
    assert.equal(credential.status, 200, credential.body);
    writeFileSync(kubeconfig, Buffer.from(credential.json<{ data: string }>().data, 'base64'));
    const monitor = await h.call('POST', CREDS, { body: { name: 'reader', namespace: 'system', expiration_days: 7, spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: 'default', role: 'monitor' }] } } });
    assert.equal(monitor.status, 200, monitor.body);
    monitorToken = monitor.json<{ data: string }>().data;
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

  it('monitor is denied exec over SPDY and WebSocket, and port-forward (403), and each attempt is recorded as forbidden', async () => {
    const before = events().length;
    const exec = `${PODS}/p/exec?command=cat&stdin=true&stdout=true&container=c`;
    const spdyExec = await spdyUpgrade(h, exec, monitorToken, 'v4.channel.k8s.io');
    assert.equal(spdyExec[0], 403);
    assert.match((JSON.parse(spdyExec[1]) as { message: string }).message, /^pods "p" is forbidden: User ".*" cannot create resource "pods\/exec" in API group "" in the namespace "default": .*write needs editor/);
    const wsExec = await webSocketUpgrade(h, exec, monitorToken, 'v5.channel.k8s.io');
    assert.equal(wsExec[0], 403);
    assert.match((JSON.parse(wsExec[1]) as { message: string }).message, /cannot get resource "pods\/exec"/);
    const spdyForward = await spdyUpgrade(h, `${PODS}/p/portforward`, monitorToken, 'portforward.k8s.io');
    assert.equal(spdyForward[0], 403);
    assert.match((JSON.parse(spdyForward[1]) as { message: string }).message, /cannot create resource "pods\/portforward"/);
    const wsForward = await webSocketUpgrade(h, `${PODS}/p/portforward?ports=80`, monitorToken, 'v4.channel.k8s.io');
    assert.equal(wsForward[0], 403);
    const anonymous = await webSocketUpgrade(h, exec, undefined, 'v5.channel.k8s.io');
    assert.equal(anonymous[0], 401);
    assert.deepEqual(scripted.calls, [], 'nothing reached the pod');

    const denied = events().slice(before);
    assert.equal(denied.length, 5, JSON.stringify(denied));
    assert.ok(denied.every((e) => e.kind === 'Event' && e.apiVersion === 'audit.k8s.io/v1' && e.level === 'Metadata' && e.stage === 'ResponseComplete'));
    const [first, second, third, fourth, fifth] = denied;
    for (const event of [first, second, third, fourth]) {
      assert.equal(event?.responseStatus.code, 403);
      assert.equal(event?.user.extra?.['edgeplane.io/credential']?.[0], 'reader');
      assert.equal(event?.annotations['authorization.k8s.io/decision'], 'forbid');
      assert.match(event?.annotations['authorization.k8s.io/reason'] ?? '', /role monitor in namespace default; write needs editor/);
    }
    assert.deepEqual(
      denied.map((e) => [e.verb, e.objectRef.subresource, e.objectRef.name, e.annotations['edgeplane.io/command'], e.annotations['edgeplane.io/ports']]),
      [
        ['create', 'exec', 'p', '["cat"]', undefined],
        ['get', 'exec', 'p', '["cat"]', undefined],
        ['create', 'portforward', 'p', undefined, undefined],
        ['get', 'portforward', 'p', undefined, '80'],
        ['get', 'exec', 'p', '["cat"]', undefined],
      ],
    );
    assert.deepEqual([fifth?.responseStatus.code, fifth?.user.username, fifth?.annotations['authorization.k8s.io/decision']], [401, '', undefined], 'no credential: no user, no decision');
  });

  it('each exec records its start and its end (command, exit code, protocol), never what went through it; the log is 0600 in a 0700 folder', async () => {
    const before = events().length;
    const old = await runKubectlWithInput(kubectl120(), ['exec', '-i', 'p', '--', 'cat'], `${SECRET}\n`, env('old'));
    assert.deepEqual([old.status, old.stdout], [0, `${SECRET}\n`], old.stderr);
    const newest = await runKubectlWithInput(kubectlNewest(), ['exec', '-i', 'p', '--', 'cat'], `${SECRET}\n`, env('newest'));
    assert.deepEqual([newest.status, newest.stdout], [0, `${SECRET}\n`], newest.stderr);
    const failing = await runKubectlWithInput(kubectl120(), ['exec', 'p', '--', 'exit', '3'], '', env('old'));
    assert.equal(failing.status, 3);
    await eventually(() => events().length === before + 6, 'a start and an end per session');

    const sessions = events().slice(before);
    const ids = [...new Set(sessions.map((e) => e.auditID))];
    assert.equal(ids.length, 3);
    const [oldExec, newExec, exit3] = ids.map((id) => sessions.filter((e) => e.auditID === id));
    for (const [pair, protocol, command, exitCode] of [
      [oldExec, 'SPDY/3.1+v4.channel.k8s.io', '["cat"]', '0'],
      [newExec, 'websocket+v5.channel.k8s.io', '["cat"]', '0'],
      [exit3, 'SPDY/3.1+v4.channel.k8s.io', '["exit","3"]', '3'],
    ] as const) {
      const [started, complete] = pair ?? [];
      assert.deepEqual([started?.stage, started?.responseStatus.code, complete?.stage, complete?.responseStatus.code], ['ResponseStarted', 101, 'ResponseComplete', 101]);
      assert.equal(started?.user.extra?.['edgeplane.io/credential']?.[0], 'kube-vk1');
      assert.deepEqual(started?.objectRef, { resource: 'pods', namespace: 'default', name: 'p', apiVersion: 'v1', subresource: 'exec' });
      assert.equal(started?.annotations['authorization.k8s.io/decision'], 'allow');
      assert.equal(started?.annotations['edgeplane.io/tenant'], 'acme');
      assert.equal(started?.annotations['edgeplane.io/virtual-cluster'], 'default/vk1');
      assert.equal(started?.annotations['edgeplane.io/container'], 'c');
      assert.equal(started?.annotations['edgeplane.io/command'], command);
      assert.equal(started?.annotations['edgeplane.io/protocol'], protocol);
      assert.equal(started?.annotations['edgeplane.io/exit-code'], undefined, 'not known at the start');
      assert.equal(complete?.annotations['edgeplane.io/exit-code'], exitCode);
      assert.match(complete?.annotations['edgeplane.io/duration'] ?? '', /^\d+(\.\d+)?s$/);
      assert.match(started?.userAgent ?? '', /^kubectl/);
      assert.deepEqual(started?.sourceIPs, ['127.0.0.1']);
      assert.match(complete?.stageTimestamp ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      assert.ok((complete?.stageTimestamp ?? '') >= (started?.stageTimestamp ?? ''));
    }

    const text = readFileSync(auditLog, 'utf8');
    assert.ok(!text.includes(SECRET), 'the stream content is not in the audit log');
    assert.ok(!text.includes(SECRET.slice(0, 12)), 'not even in part');
    assert.equal(statSync(auditLog).mode & 0o777, 0o600);
    assert.equal(statSync(dirname(auditLog)).mode & 0o777, 0o700);
  });

  it('a port-forward session records the ports it forwarded', async () => {
    const before = events().length;
    const forward = await startKubectlPortForward(kubectl120(), 'p', 80, env('old'));
    try {
      const data = Buffer.from(SECRET);
      assert.ok((await roundTrip(forward.port, data)).equals(data));
    } finally {
      await forward.stop();
    }
    await eventually(() => events().slice(before).some((e) => e.stage === 'ResponseComplete'), 'the session ended');
    const [started, complete] = events().slice(before);
    assert.deepEqual([started?.stage, started?.verb, started?.objectRef.subresource, started?.annotations['edgeplane.io/protocol']], ['ResponseStarted', 'create', 'portforward', 'SPDY/3.1+portforward.k8s.io']);
    assert.equal(complete?.annotations['edgeplane.io/ports'], '80');
    assert.equal(complete?.annotations['edgeplane.io/command'], undefined);
    assert.ok(!readFileSync(auditLog, 'utf8').includes(SECRET));
  });
});
