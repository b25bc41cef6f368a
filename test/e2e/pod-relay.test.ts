import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { httpsRequest, type HttpsRequestOptions, type HttpsResponse } from '../../src/client/https-client.js';
import type { RunningSidecar } from '../../src/sidecar/index.js';
import { POD_RELAY_PATH, POD_RELAY_PROTOCOL } from '../../src/site-api/pod-relay-protocol.js';
import { startGatewayRelay, type GatewayRelay } from './support/gateway-relay.js';
import { startWorkloadIdentityEnv, type WorkloadIdentityEnv, type WorkloadPod } from './support/workload-identity-env.js';

/**
 * The pod relay without runc: a TCP relay in this process that does what a site's gateway relay
 * does — each connection piped into a pod relay connection its agent opens to the control
 * plane — in front of the real control plane. A sidecar gets its identity through it; the
 * pod-facing API behind it serves the sidecar's routes alone; the upgrade is the agents' alone.
 */

interface RelayUpgradeOptions {
  readonly method?: string;
  readonly protocol?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** An upgrade request for the pod relay, answered: the status and body of a refusal, or 101. */
function relayUpgrade(env: WorkloadIdentityEnv, options: RelayUpgradeOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${env.h.url}${POD_RELAY_PATH}`, {
      method: options.method ?? 'GET',
      ca: env.h.ca,
      agent: false,
      ...(options.cert === undefined ? {} : { cert: options.cert, key: options.key }),
      headers: { connection: 'Upgrade', upgrade: options.protocol ?? POD_RELAY_PROTOCOL },
    });
    req.on('upgrade', (_res, socket: Socket) => {
      socket.destroy();
      resolve({ status: 101, body: '' });
    });
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the pod relay: site agents relay their pods into the control plane\'s pod-facing API', () => {
  let env: WorkloadIdentityEnv;
  let pod: WorkloadPod;
  let relay: GatewayRelay;
  let sidecar: RunningSidecar;
  /** A request to the control plane as a pod makes it: through the gateway relay. */
  const fromPod = (method: string, path: string, options: HttpsRequestOptions = {}): Promise<HttpsResponse> =>
    httpsRequest(`${env.h.url}${path}`, env.h.ca, { ...options, method, connectTo: { host: '127.0.0.1', port: relay.port } });

  before(async () => {
    env = await startWorkloadIdentityEnv();
    const first = env.acme[0];
    if (first === undefined) throw new Error('acme has a pod');
    pod = first;
    relay = await startGatewayRelay({ ca: env.h.ca, certificate: pod.agent.cert, key: pod.agent.key }, [env.h.url]);
    sidecar = await env.sidecar(pod, { connectTo: `127.0.0.1:${relay.port}` });
    await sidecar.whenReady();
  });
  after(async () => {
    relay?.close();
    await env?.close();
  });

  it('a sidecar behind the relay bootstraps its identity, and its certificate is what the secret API there knows', async () => {
    assert.equal(sidecar.state(), 'READY');
    const credential = { cert: readFileSync(join(sidecar.identityDir, 'client.crt'), 'utf8'), key: readFileSync(join(sidecar.identityDir, 'client.key'), 'utf8') };
    const provider = await fromPod('GET', '/api/secret_management/v1/providers/no-such-provider', credential);
    assert.equal(provider.status, 404, provider.body);
    assert.equal(provider.json<{ reason: string }>().reason, 'ProviderNotFound');
    const anonymous = await fromPod('GET', '/api/secret_management/v1/providers/no-such-provider');
    assert.equal(anonymous.status, 401, anonymous.body);
    const unseal = await fromPod('POST', '/api/secret_management/v1/unseal', { ...credential, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ location: 'string:///bm90IGEgYmxpbmRmb2xkIHNlY3JldA==' }) });
    assert.equal(unseal.status, 400, unseal.body);
  });

  it('answers the sidecar\'s routes; metrics, version, health and every other API are 404 there though the control plane serves them', async () => {
    const ca = await fromPod('GET', '/api/sites/v1/ca');
    assert.deepEqual([ca.status, ca.body], [200, env.h.ca]);
    // The identity API answers (and checks the request before the token).
    const issuance = await fromPod('POST', '/api/identity/v1/certificates', { headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' }, body: '{}' });
    assert.deepEqual([issuance.status, issuance.json<{ message: string }>().message], [400, 'serverCsr: Required value: a non-empty string']);
    for (const [method, path] of [
      ['GET', '/metrics'],
      ['GET', '/version'],
      ['GET', '/readyz'],
      ['GET', '/healthz'],
      ['GET', '/livez?verbose'],
      ['GET', '/api/web/namespaces'],
      ['POST', '/api/identity/v1/tokens'],
      ['GET', '/api/secret_management/get_public_key'],
      ['POST', '/api/sites/v1/heartbeat'],
      ['GET', '/api/vk8s/namespaces/default/vk1/api/v1/pods'],
    ] as const) {
      const answer = await fromPod(method, path, { headers: { authorization: `APIToken ${env.h.platformToken}` } });
      assert.equal(answer.status, 404, `${method} ${path} through the relay: ${answer.status} ${answer.body.slice(0, 120)}`);
      assert.ok(answer.body.length < 200, `${method} ${path}: ${answer.body.length} bytes`);
    }
    for (const path of ['/metrics', '/version', '/readyz']) {
      assert.equal((await env.h.call('GET', path)).status, 200, `${path} on the control plane's own listener`);
    }
  });

  it('the relay upgrade is the agents\' alone: 401 without a certificate, 400 for another protocol, 405 for another method', async () => {
    const anonymous = await relayUpgrade(env, {});
    assert.equal(anonymous.status, 401);
    assert.equal((JSON.parse(anonymous.body) as { reason?: string }).reason, 'Unauthorized');
    const agent = { cert: pod.agent.cert, key: pod.agent.key };
    assert.equal((await relayUpgrade(env, { ...agent })).status, 101);
    assert.equal((await relayUpgrade(env, { ...agent, protocol: 'edgeplane-tunnel.v0' })).status, 400);
    assert.equal((await relayUpgrade(env, { ...agent, method: 'POST' })).status, 405);
    const plain = await env.h.call('GET', POD_RELAY_PATH, { token: null, cert: pod.agent.cert, key: pod.agent.key });
    assert.equal(plain.status, 404, plain.body);
  });
});
