import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterWithKubeconfig, edgeplane, type ClusterCredentials } from './support/cluster-credentials.js';
import { httpsRequest, startServer, type ServerProcess } from './support/server-process.js';
import { siteToken, startSiteAgentProcess, type SiteAgentProcess } from './support/site-agent-process.js';
import { waitFor } from './support/wait-for.js';

/** The shortened lease (kube's node-monitor-grace-period) of these servers. */
const GRACE_SECONDS = 3;

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
}

/**
 * A real server process over SQLite, an external simulated site agent (`edgeplane site`) and a
 * pod on its site: the control plane's own outages (SIGKILL, SIGTERM) as an operator causes them.
 */
describe('control plane outages (real server and agent processes)', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-cp-outage-'));
  const home = join(root, 'home');
  let server: ServerProcess | undefined;
  let agent: SiteAgentProcess | undefined;
  let cluster: ClusterCredentials;
  let port = 0;
  const flags = (): string[] => ['--node-monitor-grace-period', `${GRACE_SECONDS}s`, '--shutdown-timeout', '60s', ...(port === 0 ? [] : ['--listen', `127.0.0.1:${port}`])];
  const api = (path: string, options: { method?: string; body?: unknown; signal?: AbortSignal } = {}) =>
    httpsRequest(`${cluster.server}${path}`, cluster.ca, {
      cert: cluster.cert,
      key: cluster.key,
      ...(options.method === undefined ? {} : { method: options.method }),
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body), headers: { 'content-type': 'application/json' } }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  const readyCondition = async (): Promise<Condition | undefined> => {
    const answer = await api('/api/v1/namespaces/default/pods?labelSelector=app%3Dweb');
    assert.equal(answer.status, 200, answer.body);
    const pods = answer.json<{ items: Array<{ status?: { conditions?: Condition[] } }> }>().items;
    assert.ok(pods.length <= 1, `one pod: ${pods.length}`);
    return pods[0]?.status?.conditions?.find((c) => c.type === 'Ready');
  };
  const siteState = async (): Promise<string> => {
    const token = readFileSync(join(home, 'api-token'), 'utf8').trim();
    const answer = await httpsRequest(`${server?.url ?? ''}/api/config/namespaces/system/sites/ce-1`, readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), { headers: { authorization: `APIToken ${token}` } });
    assert.equal(answer.status, 200, answer.body);
    return answer.json<{ status?: Array<{ state?: string }> }>().status?.[0]?.state ?? '';
  };

  before(async () => {
    server = await startServer(home, flags());
    port = Number(new URL(server.url).port);
    edgeplane(home, ['config', 'create', 'virtual_site', '-n', 'default', '-f', '-'], JSON.stringify({ metadata: { name: 'edge' }, spec: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['edge'] } } }));
    cluster = clusterWithKubeconfig(home, root, 'default', 'vk1', { vsite_refs: [{ namespace: 'default', name: 'edge' }] });
    agent = await startSiteAgentProcess({ home: join(root, 'agent'), site: 'ce-1', labels: 'edge=true', token: siteToken(home) });
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } };
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template } };
    const created = await api('/apis/apps/v1/namespaces/default/deployments', { method: 'POST', body: deployment });
    assert.equal(created.status, 201, created.body);
    await waitFor('the pod Ready', async () => ((await readyCondition())?.status === 'True' ? true : undefined), { timeoutMs: 60_000 });
  });

  after(async () => {
    await agent?.stop();
    await server?.stop('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('a control plane SIGKILLed for longer than the site lease and restarted marks no site FAILED and no pod Ready=False', async () => {
    const readyBefore = await readyCondition();
    await server?.stop('SIGKILL');
    // Down for longer than the lease: every lease key's timestamps are past due at the restart.
    await sleep(GRACE_SECONDS * 1000 + 2000);
    server = await startServer(home, flags());
    const restarted = server;
    // Watched for the grace period after the restart and then some: the pod never goes not Ready.
    const until = Date.now() + GRACE_SECONDS * 2000 + 2000;
    while (Date.now() < until) {
      const ready = await readyCondition();
      assert.equal(ready?.status, 'True', `the pod went not Ready after the restart: ${JSON.stringify(ready)}`);
      await sleep(200);
    }
    assert.equal((await readyCondition())?.lastTransitionTime, readyBefore?.lastTransitionTime, 'the pod never left Ready (its Ready condition never changed)');
    const changes = restarted.logs.filter((l) => l['msg'] === 'site state changed').map((l) => l['state']);
    assert.ok(!changes.includes('FAILED'), `a site went FAILED after the restart: ${JSON.stringify(changes)}`);
    assert.equal(await siteState(), 'ONLINE');
    assert.ok(agent?.running(), 'the agent kept running');
  });

  it('SIGTERM with an agent\'s tunnel and a watch open stops the server without waiting for its timeout; the agent dials again', async () => {
    const current = server;
    assert.ok(current !== undefined && agent !== undefined);
    await waitFor('the agent\'s tunnel open', () => Promise.resolve(current.logs.some((l) => l['msg'] === 'site tunnel open') ? true : undefined), { timeoutMs: 30_000 });
    const before = agent.log().length;
    const watch = api('/api/v1/namespaces/default/pods?watch=1');
    await sleep(1000); // the watch's headers are in (a request line is logged only when it ends)
    const code = await current.stop('SIGTERM');
    server = undefined;
    assert.equal(code, 0, current.stderr());
    const messages = current.logs.map((l) => String(l['msg']));
    assert.ok(messages.includes('shut down cleanly'), messages.slice(-10).join('\n'));
    assert.ok(!messages.includes('shutdown timeout reached: closing the connections still open'), 'nothing was left for the timeout to cut');
    // The watch was answered to its end (a clean end of the stream: clients watch again), not cut.
    const ended = await watch;
    assert.equal(ended.status, 200);
    await waitFor('the agent dialling again', () => {
      const since = agent?.log().slice(before) ?? '';
      return Promise.resolve(/tunnel to the control plane (lost; dialling again|failed; retrying)/.test(since) ? true : undefined);
    }, { timeoutMs: 20_000 });
    assert.ok(agent.running(), `the agent crashed:\n${agent.log().slice(-3000)}`);
  });
});

