import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Exec, KubeConfig, Log, PortForward, type V1Status } from '@kubernetes/client-node';
import { WebSocketHandler } from '@kubernetes/client-node/dist/web-socket-handler.js';
import WebSocket from 'ws';
import { eventually } from '../../src/store/testing/watch-helpers.js';
import { NoRunningContainersBackend } from '../../src/vk8s/streams/testing/no-running-containers-backend.js';
import { runKubectlWithInput, spawnKubectl, startKubectlPortForward } from '../../src/vk8s/streams/testing/kubectl-processes.js';
import { runningPod, startPodStreamTestServer, type PodStreamTestServer } from '../../src/vk8s/streams/testing/pod-stream-test-server.js';
import { ScriptedPodBackend } from '../../src/vk8s/streams/testing/scripted-pod-backend.js';
import { roundTrip, startEchoServer } from '../../src/vk8s/streams/testing/tcp-echo.js';
import { kubectl120, kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';

/** The CA of a test server, from its kubeconfig. */
function caOf(server: PodStreamTestServer): string {
  const match = /certificate-authority-data: (\S+)/.exec(server.kubeconfigYaml);
  return Buffer.from(match?.[1] ?? '', 'base64').toString();
}

function kubeConfig(server: PodStreamTestServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfigYaml);
  return kc;
}

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

/** Runs client-node's Exec; resolves with the status it reports and the output. */
async function clientNodeExec(exec: Exec, command: string[], stdin: Readable | null): Promise<{ status: V1Status; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const status = await new Promise<V1Status>((resolve, reject) => {
    exec.exec('ns', 'p', 'c', command, stdout, stderr, stdin, false, resolve).catch(reject);
  });
  return { status, stdout: out(), stderr: err() };
}

/** Writes `data` to a local port and resolves once as many bytes came back (the connection is then dropped). */
function exchange(port: number, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= data.length) {
        socket.destroy();
        resolve(Buffer.concat(chunks));
      }
    });
  });
}

/** An HTTPS request to the test server. */
function call(server: PodStreamTestServer, method: string, path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { method, ca: caOf(server) }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function bodyOf(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += (chunk as Buffer).toString();
  return text;
}

describe('pod streams with real clients', () => {
  let server: PodStreamTestServer;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let backend: ScriptedPodBackend;
  let sink: Server;
  const sinkSockets = new Set<Socket>();
  const env = (label: string): { kubeconfig: string; cacheDir: string } => ({ kubeconfig: server.kubeconfig, cacheDir: join(server.dir, `cache-${label}`) });
  let old: string;
  let newest: string;

  before(async () => {
    old = kubectl120();
    newest = kubectlNewest();
    echo = await startEchoServer();
    sink = createServer((socket) => {
      sinkSockets.add(socket);
      socket.pause(); // a pod that stops reading
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    backend = new ScriptedPodBackend({ 80: echo.port, 81: (sink.address() as AddressInfo).port }, ['one', 'two', 'three']);
    server = await startPodStreamTestServer([runningPod('p'), runningPod('pending', { nodeName: '' })], backend);
  });
  after(async () => {
    for (const socket of sinkSockets) socket.destroy();
    sink?.close();
    await server?.close();
    await echo?.close();
  });

  it('kubectl 1.20 exec over SPDY prints stdout and stderr and exits 0', async () => {
    const run = await runKubectl(old, ['exec', 'p', '--', 'echo', 'hi', 'there'], env('old'));
    assert.deepEqual([run.status, run.stdout], [0, 'hi there\n'], run.stderr);
    const warn = await runKubectl(old, ['exec', 'p', '--', 'warn', 'careful'], env('old'));
    assert.deepEqual([warn.status, warn.stdout, warn.stderr], [0, '', 'careful\n']);
  });

  it('kubectl 1.20 exec -i passes piped stdin through, 1 MiB each way', async () => {
    const input = randomBytes(1 << 20);
    const run = await runKubectlWithInput(old, ['exec', '-i', 'p', '--', 'cat'], input, env('old'));
    assert.equal(run.status, 0, run.stderr);
    assert.ok(run.output.equals(input), `got ${run.output.length} bytes back`);
  });

  it('kubectl 1.20 exec exits with the command\'s non-zero exit code', async () => {
    const run = await runKubectl(old, ['exec', 'p', '--', 'exit', '3'], env('old'));
    assert.equal(run.status, 3);
    assert.equal(run.stderr.trim(), 'command terminated with exit code 3');
  });

  it('kubectl 1.20 exec prints kube\'s errors for backend failures, bad containers and unscheduled pods', async () => {
    const missing = await runKubectl(old, ['exec', 'p', '--', 'nope'], env('old'));
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr.trim(), 'error: Internal error occurred: error executing command in container: exec: "nope": executable file not found in $PATH');
    const container = await runKubectl(old, ['exec', '-c', 'zz', 'p', '--', 'echo'], env('old'));
    assert.equal(container.stderr.trim(), 'Error from server (BadRequest): container zz is not valid for pod p');
    const pending = await runKubectl(old, ['exec', 'pending', '--', 'echo'], env('old'));
    assert.equal(pending.stderr.trim(), 'Error from server (BadRequest): pod pending does not have a host assigned');
  });

  it('kubectl attach -i (1.20 over SPDY, newest over WebSocket) connects stdin and stdout', async () => {
    for (const [label, binary] of [['old', old], ['newest', newest]] as const) {
      const run = await runKubectlWithInput(binary, ['attach', '-i', 'p'], 'attached\n', env(label));
      assert.deepEqual([run.status, run.stdout], [0, 'attached\n'], `${label}: ${run.stderr}`);
    }
    assert.ok(backend.calls.some((c) => c.kind === 'attach'));
  });

  it('a client going away mid-command aborts the backend\'s session (SPDY and WebSocket)', async () => {
    const child = spawnKubectl(old, ['exec', 'p', '--', 'sleep'], env('old'));
    const sleeping = (): number => backend.calls.filter((c) => c.kind === 'exec' && (c.detail as { command: string[] }).command[0] === 'sleep').length;
    await eventually(() => sleeping() === 1, 'the command started');
    child.kill('SIGKILL');
    await eventually(() => backend.abandonedSleeps === 1, 'the SPDY session aborted');
    const ws = new WebSocket(`${server.url.replace('https', 'wss')}/api/v1/namespaces/ns/pods/p/exec?command=sleep&stdout=true`, ['v5.channel.k8s.io'], { ca: caOf(server) });
    await new Promise((resolve) => ws.once('open', resolve));
    await eventually(() => sleeping() === 2, 'the second command started');
    ws.terminate();
    await eventually(() => backend.abandonedSleeps === 2, 'the WebSocket session aborted');
  });

  it('an upload to a pod that stops reading holds kubectl back (SPDY and SPDY over WebSocket): the control plane buffers a bounded amount', async () => {
    for (const [label, binary] of [['old', old], ['newest', newest]] as const) {
      const forward = await startKubectlPortForward(binary, 'p', 81, env(label));
      try {
        const client = connect(forward.port, '127.0.0.1');
        await new Promise((resolve) => client.once('connect', resolve));
        let accepted = 0;
        const chunk = Buffer.alloc(256 * 1024);
        const deadline = Date.now() + 3000;
        while (Date.now() < deadline) {
          if (client.write(chunk)) accepted += chunk.length;
          else {
            accepted += chunk.length;
            await Promise.race([new Promise((resolve) => client.once('drain', resolve)), new Promise((resolve) => setTimeout(resolve, 200))]);
          }
        }
        // Kernel buffers on each hop, kubectl's and the control plane's (1 MiB a stream) — not the upload.
        assert.ok(accepted < 96 * 1024 * 1024, `${label}: ${accepted} bytes taken while the pod read nothing`);
        client.destroy();
      } finally {
        await forward.stop();
      }
    }
  });

  it('kubectl 1.20 port-forward carries two connections over one SPDY session', async () => {
    const forward = await startKubectlPortForward(old, 'p', 80, env('old'));
    try {
      for (const size of [10, 1 << 20]) {
        const data = randomBytes(size);
        const back = await roundTrip(forward.port, data);
        assert.ok(back.equals(data), `${size} bytes: got ${back.length}`);
      }
      assert.equal((forward.output().match(/Handling connection for/g) ?? []).length, 2, forward.output());
      assert.doesNotMatch(forward.output(), /error|E\d{4}/i);
    } finally {
      await forward.stop();
    }
  });

  it('the newest kubectl execs over WebSocket v5: output, stdin with its close signal, exit code', async () => {
    const hi = await runKubectl(newest, ['-v=6', 'exec', 'p', '--', 'echo', 'hi'], env('newest'));
    assert.equal(hi.status, 0, hi.stderr);
    assert.equal(hi.stdout, 'hi\n');
    assert.match(hi.stderr, /101 Switching Protocols/);
    assert.doesNotMatch(hi.stderr, /[Ff]allback/);
    const input = randomBytes(300_000);
    const cat = await runKubectlWithInput(newest, ['exec', '-i', 'p', '--', 'cat'], input, env('newest'));
    assert.equal(cat.status, 0, cat.stderr);
    assert.ok(cat.output.equals(input), `got ${cat.output.length} bytes back`);
    const exit = await runKubectl(newest, ['exec', 'p', '--', 'exit', '42'], env('newest'));
    assert.equal(exit.status, 42);
    assert.equal(exit.stderr.trim(), 'command terminated with exit code 42');
  });

  it('the newest kubectl port-forward tunnels SPDY through a WebSocket', async () => {
    const forward = await startKubectlPortForward(newest, 'p', 80, env('newest'), ['-v=4']);
    try {
      for (const size of [7, 500_000]) {
        const data = randomBytes(size);
        assert.ok((await roundTrip(forward.port, data)).equals(data));
      }
      assert.match(forward.output(), /negotiated protocol: portforward\.k8s\.io/);
      assert.doesNotMatch(forward.output(), /fallback/);
    } finally {
      await forward.stop();
    }
  });

  it('client-node Exec gets output and exit codes over v4 and v5', async () => {
    const kc = kubeConfig(server);
    const v4Only = new WebSocketHandler(kc, (uri, protocols, opts) => new WebSocket(uri, protocols.filter((p) => p !== 'v5.channel.k8s.io'), opts));
    const v4 = new Exec(kc, v4Only);
    const hi = await clientNodeExec(v4, ['echo', 'hello'], null);
    assert.deepEqual([hi.status, hi.stdout, hi.stderr], [{ metadata: {}, status: 'Success' }, 'hello\n', '']);
    const failed = await clientNodeExec(v4, ['exit', '7'], null);
    assert.equal(failed.status.reason, 'NonZeroExitCode');
    assert.deepEqual(failed.status.details?.causes, [{ reason: 'ExitCode', message: '7' }]);
    const v5 = new Exec(kc);
    const cat = await clientNodeExec(v5, ['cat'], Readable.from([Buffer.from('from stdin\n')]));
    assert.deepEqual([cat.status.status, cat.stdout], ['Success', 'from stdin\n']);
  });

  it('client-node PortForward forwards local connections over WebSocket channels', async () => {
    const forwarder = new PortForward(kubeConfig(server));
    const local: Server = createServer((socket) => {
      socket.on('error', () => undefined);
      void forwarder.portForward('ns', 'p', [80], socket, null, socket);
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const port = (local.address() as AddressInfo).port;
    try {
      const before = echo.connections();
      for (const size of [5, 200_000]) {
        const data = randomBytes(size);
        assert.ok((await exchange(port, data)).equals(data));
      }
      assert.equal(echo.connections() - before, 2);
    } finally {
      local.close();
    }
  });

  it('a WebSocket exec with a terminal receives resize messages on channel 4', async () => {
    const ws = new WebSocket(`${server.url.replace('https', 'wss')}/api/v1/namespaces/ns/pods/p/exec?command=size&stdout=true&tty=true`, ['v4.channel.k8s.io'], { ca: caOf(server) });
    const frames: Buffer[] = [];
    ws.on('message', (data: Buffer) => frames.push(data));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(Buffer.concat([Buffer.from([4]), Buffer.from('{"Width":100,"Height":30}')]));
    await new Promise((resolve) => ws.once('close', resolve));
    assert.deepEqual(frames.map((f) => [f[0], f.subarray(1).toString()]), [
      [1, ''],
      [1, '100x30\n'],
      [3, '{"metadata":{},"status":"Success"}'],
    ]);
  });

  it('a base64 channel protocol exec gets text frames', async () => {
    const ws = new WebSocket(`${server.url.replace('https', 'wss')}/api/v1/namespaces/ns/pods/p/exec?command=echo&command=b64&stdout=true`, ['v4.base64.channel.k8s.io'], { ca: caOf(server) });
    const frames: string[] = [];
    ws.on('message', (data: Buffer, isBinary: boolean) => frames.push(`${isBinary ? 'binary' : 'text'}:${data.toString()}`));
    await new Promise((resolve) => ws.once('close', resolve));
    assert.equal(ws.protocol, 'v4.base64.channel.k8s.io');
    assert.deepEqual(frames, ['text:1', `text:1${Buffer.from('b64\n').toString('base64')}`, `text:3${Buffer.from('{"metadata":{},"status":"Success"}').toString('base64')}`]);
  });

  it('logs stream as text/plain while following, until the client goes away', async () => {
    const response = await call(server, 'GET', '/api/v1/namespaces/ns/pods/p/log?follow=true&tailLines=1');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/plain');
    assert.equal(response.headers['transfer-encoding'], 'chunked');
    let text = '';
    response.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await eventually(() => text === 'three\n', 'the tail');
    await eventually(() => backend.followerCount() === 1, 'one follower');
    backend.appendLog('live 1\n');
    await eventually(() => text === 'three\nlive 1\n', 'a line written while following');
    response.destroy();
    await eventually(() => backend.followerCount() === 0, 'the backend log stream closed');
  });

  it('client-node Log follows a pod log; kubectl logs tails it', async () => {
    const out = new PassThrough();
    const text = collect(out);
    const controller = await new Log(kubeConfig(server)).log('ns', 'p', 'c', out, { follow: true, tailLines: 2, timestamps: true });
    await eventually(() => text() === '2020-01-01T00:00:00.000000000Z two\n2020-01-01T00:00:00.000000000Z three\n', 'the tail');
    await eventually(() => backend.followerCount() === 1, 'one follower');
    backend.appendLog('2020-01-01T00:00:01.000000000Z more\n');
    await eventually(() => text().endsWith('more\n'), 'a followed line');
    controller.abort();
    await eventually(() => backend.followerCount() === 0, 'the follower gone');
    const run = await runKubectl(old, ['logs', '--tail=2', 'p'], env('old'));
    assert.deepEqual([run.status, run.stdout], [0, 'two\nthree\n'], run.stderr);
  });

  it('answers like kube: non-upgrade requests, log options, unscheduled pods\' logs, WebSocket refusals', async () => {
    const plain = await call(server, 'POST', '/api/v1/namespaces/ns/pods/p/exec?command=ls&stdout=true');
    assert.equal(plain.statusCode, 400);
    assert.deepEqual(JSON.parse(await bodyOf(plain)), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Upgrade request required', reason: 'BadRequest', code: 400 });
    const invalid = await call(server, 'GET', '/api/v1/namespaces/ns/pods/p/log?limitBytes=0');
    assert.equal(invalid.statusCode, 422);
    assert.equal((JSON.parse(await bodyOf(invalid)) as { message: string }).message, 'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0');
    const limited = await call(server, 'GET', '/api/v1/namespaces/ns/pods/p/log?limitBytes=6');
    assert.deepEqual([limited.statusCode, await bodyOf(limited)], [200, 'one\ntw']);
    const pending = await call(server, 'GET', '/api/v1/namespaces/ns/pods/pending/log');
    assert.deepEqual([pending.statusCode, await bodyOf(pending)], [200, '']);
    const ws = new WebSocket(`${server.url.replace('https', 'wss')}/api/v1/namespaces/ns/pods/p/exec?command=ls&stdout=true`, ['nonsense.k8s.io'], { ca: caOf(server) });
    const refused = await new Promise<number | undefined>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode)));
    assert.equal(refused, 403);
    const noStreams = new WebSocket(`${server.url.replace('https', 'wss')}/api/v1/namespaces/ns/pods/p/exec?command=ls`, ['v4.channel.k8s.io'], { ca: caOf(server) });
    const [code, text] = await new Promise<[number | undefined, string]>((resolve) => noStreams.on('unexpected-response', (_req, res) => void bodyOf(res).then((body) => resolve([res.statusCode, body]))));
    assert.deepEqual([code, text], [400, 'you must specify at least 1 of stdin, stdout, stderr']);
  });
});

describe('pod streams while no container runs', () => {
  let server: PodStreamTestServer;
  const env = (label: string): { kubeconfig: string; cacheDir: string } => ({ kubeconfig: server.kubeconfig, cacheDir: join(server.dir, `cache-${label}`) });

  before(async () => {
    server = await startPodStreamTestServer([runningPod('p')], new NoRunningContainersBackend());
  });
  after(async () => {
    await server?.close();
  });

  it('kubectl prints kubelet\'s refusals, old and new', async () => {
    for (const binary of [kubectl120(), kubectlNewest()]) {
      const run = await runKubectl(binary, ['exec', 'p', '--', 'echo'], env(binary.replace(/\W/g, '')));
      assert.equal(run.status, 1);
      assert.match(run.stderr, /^error: unable to upgrade connection: container not found \("c"\)$/m, run.stderr);
      const logs = await runKubectl(binary, ['logs', 'p'], env(binary.replace(/\W/g, '')));
      assert.equal(logs.stderr.trim(), 'Error from server (BadRequest): container "c" in pod "p" is waiting to start: ContainerCreating');
    }
  });

  it('a WebSocket port-forward is refused before the handshake with kubelet\'s text', async () => {
    const ws = new WebSocket(`${server.url.replace('https', 'wss')}/api/v1/namespaces/ns/pods/p/portforward?ports=80`, ['v4.channel.k8s.io'], { ca: caOf(server) });
    const [code, text] = await new Promise<[number | undefined, string]>((resolve) => ws.on('unexpected-response', (_req, res) => void bodyOf(res).then((body) => resolve([res.statusCode, body]))));
    assert.deepEqual([code, text], [500, 'pod not found ("p_ns")']);
  });
});
