import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { IDENTITY_VOLUME_NAME, SIDECAR_CONTAINER_NAME, SIDECAR_INJECTED_ANNOTATION, SIDECAR_PORT } from '../../src/api/sidecar-injection.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { startKubectlPortForward } from '../../src/vk8s/streams/testing/kubectl-processes.js';
import { runningPod, startPodStreamTestServer, type PodStreamTestServer } from '../../src/vk8s/streams/testing/pod-stream-test-server.js';
import { ScriptedPodBackend } from '../../src/vk8s/streams/testing/scripted-pod-backend.js';
import { roundTrip, startEchoServer } from '../../src/vk8s/streams/testing/tcp-echo.js';
import { kubectl120, kubectlNewest } from '../../src/vk8s/testing/kubectl.js';
import { waitFor } from './support/wait-for.js';

/**
 * The sidecar's port (8070 on the pod's loopback) serves the pod's private key to the pod's
 * own containers: `kubectl port-forward` to it is refused by the API, as exec into the sidecar
 * is. kubectl names the port per forwarded connection (SPDY streams, SPDY over WebSocket), so
 * each connection to it is refused with the Forbidden message on its error stream; a request
 * naming it in `ports=` (WebSocket channels) is refused 403 before the upgrade.
 */

/** A running pod the platform injected its sidecar into, as the scheduler's binding writes it. */
function podWithSidecar(name: string): KubeObject {
  const pod = runningPod(name);
  const spec = pod['spec'] as { containers: object[] };
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations: { [SIDECAR_INJECTED_ANNOTATION]: 'true' } },
    spec: { ...spec, containers: [...spec.containers, { name: SIDECAR_CONTAINER_NAME, image: 'edgeplane/sidecar:0', volumeMounts: [{ name: IDENTITY_VOLUME_NAME, mountPath: '/svc/secrets/identity' }] }] },
  };
}

function caOf(server: PodStreamTestServer): string {
  const match = /certificate-authority-data: (\S+)/.exec(server.kubeconfigYaml);
  return Buffer.from(match?.[1] ?? '', 'base64').toString();
}

async function bodyOf(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += (chunk as Buffer).toString();
  return text;
}

const FORBIDDEN = `pods "s" is forbidden: port-forward to port ${SIDECAR_PORT} is not allowed: it is the ${SIDECAR_CONTAINER_NAME}'s port, which serves the pod's identity key to the pod's own containers`;

describe('port-forward to the injected sidecar\'s port', () => {
  let server: PodStreamTestServer;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let backend: ScriptedPodBackend;
  const env = (label: string): { kubeconfig: string; cacheDir: string } => ({ kubeconfig: server.kubeconfig, cacheDir: join(server.dir, `cache-${label}`) });

  before(async () => {
    echo = await startEchoServer();
    // Were the API to let them through, both ports would answer: the sidecar's port echoes as the sidecar would serve its key.
    backend = new ScriptedPodBackend({ 80: echo.port, [SIDECAR_PORT]: echo.port });
    server = await startPodStreamTestServer([podWithSidecar('s'), runningPod('plain')], backend);
  });
  after(async () => {
    await server?.close();
    await echo?.close();
  });

  for (const [version, binary] of [['1.20 (SPDY)', kubectl120], ['newest (SPDY over WebSocket)', kubectlNewest]] as const) {
    it(`kubectl ${version}: a connection to ${SIDECAR_PORT} gets nothing and kubectl prints the Forbidden refusal; a workload port still forwards`, async () => {
      const label = binary === kubectl120 ? 'old' : 'new';
      const refused = await startKubectlPortForward(binary(), 's', SIDECAR_PORT, env(label));
      try {
        const calls = backend.calls.length;
        const back = await roundTrip(refused.port, Buffer.from('GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).catch(() => Buffer.alloc(0));
        assert.equal(back.length, 0, `the sidecar's port answered: ${back.toString()}`);
        await waitFor('kubectl to print the refusal', () => Promise.resolve(refused.output().replace(/\\"/g, '"').includes(FORBIDDEN) ? true : undefined), {
          timeoutMs: 15_000,
          describe: () => refused.output(),
        });
        assert.match(refused.output(), new RegExp(`an error occurred forwarding ${refused.port} -> ${SIDECAR_PORT}: `));
        assert.equal(backend.calls.slice(calls).some((c) => c.kind === 'portforward'), false, 'the refused connection reached the pod');
      } finally {
        await refused.stop();
      }
      const forward = await startKubectlPortForward(binary(), 's', 80, env(label));
      try {
        const data = randomBytes(100_000);
        assert.ok((await roundTrip(forward.port, data)).equals(data));
      } finally {
        await forward.stop();
      }
    });
  }

  it(`a request naming ${SIDECAR_PORT} in ports= is refused 403 before the upgrade, over WebSocket channels and SPDY`, async () => {
    const ws = new WebSocket(`${server.url.replace('https', 'wss')}/api/v1/namespaces/ns/pods/s/portforward?ports=80&ports=${SIDECAR_PORT}`, ['v4.channel.k8s.io'], { ca: caOf(server) });
    ws.on('error', () => undefined);
    const [code, body] = await new Promise<[number | undefined, string]>((resolve) => {
      ws.on('unexpected-response', (_req, res) => void bodyOf(res).then((text) => resolve([res.statusCode, text])));
      ws.on('open', () => {
        ws.terminate();
        resolve([101, 'the upgrade was accepted']);
      });
    });
    assert.equal(code, 403);
    assert.deepEqual(JSON.parse(body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: FORBIDDEN, reason: 'Forbidden', details: { name: 's', kind: 'pods' }, code: 403 });
    const spdy = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpsRequest(`${server.url}/api/v1/namespaces/ns/pods/s/portforward?ports=${SIDECAR_PORT}`, {
        method: 'POST',
        ca: caOf(server),
        headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'portforward.k8s.io' },
      });
      req.on('response', resolve);
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        reject(new Error('the upgrade was accepted'));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(spdy.statusCode, 403);
    assert.equal((JSON.parse(await bodyOf(spdy)) as { message: string }).message, FORBIDDEN);
  });

  it(`a pod without the sidecar may forward ${SIDECAR_PORT}: the port is then its workload's`, async () => {
    const forward = await startKubectlPortForward(kubectl120(), 'plain', SIDECAR_PORT, env('plain'));
    try {
      const data = randomBytes(1000);
      assert.ok((await roundTrip(forward.port, data)).equals(data));
    } finally {
      await forward.stop();
    }
  });
});
