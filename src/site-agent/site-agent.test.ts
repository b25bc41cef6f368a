import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import type { KubeObject } from '../apimachinery/object.js';
import { podKeyOf } from './pod-key.js';
import { startSiteAgent, type SiteAgent, type SiteAgentOptions } from './site-agent.js';
import { siteSpecsFor } from './site-specs.js';
import { FakeSiteApi } from './testing/fake-site-api.js';

const logger = createLogger({ level: 'silent' });
const cluster = { tenant: 'acme', namespace: 'shop', name: 'vk' };
const BIN = fileURLToPath(new URL('../../../bin/edgeplane.js', import.meta.url));

function pod(name: string, nodeName: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop', uid: `uid-${name}` },
    spec: { nodeName, containers: [{ name: 'app', image: 'nginx:1.17' }], restartPolicy: 'Always', ...extra },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }] },
  };
}

/** Runs the CLI to its end; resolves to its exit code and output. */
function runCli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('site agent against a fake site API', () => {
  let api: FakeSiteApi;
  let root: string;
  const agents: SiteAgent[] = [];
  const start = async (options: Partial<SiteAgentOptions> & Pick<SiteAgentOptions, 'agent' | 'sites' | 'home'>): Promise<SiteAgent> => {
    const agent = await startSiteAgent({ heartbeatSeconds: 1, logger, sim: { startMs: 50, stopMs: 50 }, statusFlushMs: 20, ...options });
    agents.push(agent);
    return agent;
  };

  before(async () => {
    api = await FakeSiteApi.start();
    root = mkdtempSync(join(tmpdir(), 'edgeplane-site-'));
  });
  after(async () => {
    await Promise.all(agents.map((a) => a.close(1000)));
    await api.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('site agent registers with a CSR, keeps its credential private, and heartbeats over mTLS', async () => {
    const home = join(root, 'edge-a');
    const sites = siteSpecsFor({ name: 'edge-a', type: 'CUSTOMER_EDGE', labels: { region: 'eu' }, nodes: 2, cpu: '8', memory: '16Gi' });
    const agent = await start({ agent: 'edge-a', sites, home, token: api.token });
    assert.deepEqual(agent.sites, ['edge-a']);
    assert.equal(api.registrations.length, 1);
    assert.equal(api.registrations[0]?.subject, 'CN=site-agent:edge-a');
    assert.deepEqual(api.registrations[0]?.sites, sites);
    for (const file of ['agent.key', 'agent.crt', 'ca.crt', 'agent.json']) assert.equal(statSync(join(home, file)).mode & 0o777, 0o600, file);
    await agent.firstHeartbeat;
    await until('two heartbeats', () => api.heartbeats.filter((h) => h.subject === 'site-agent:edge-a').length >= 2, 5000);
    assert.deepEqual(api.heartbeats[0]?.sites, ['edge-a']);
    assert.equal(api.refusedWithoutCertificate, 0);
  });

  it('site agent posts a bound pod\'s statuses in order and reports a deleted pod terminated', async () => {
    api.addPod(cluster, pod('web-1', 'edge-a-node-1'));
    const phasesOf = (name: string): string[] => api.statuses.filter((s) => s.name === name).map((s) => String(s.status['phase']));
    await until('web-1 running', () => phasesOf('web-1').includes('Running'));
    assert.deepEqual(phasesOf('web-1'), ['Pending', 'Running']);
    const running = api.pod(cluster, 'web-1')?.['status'] as { podIP?: string; hostIP?: string };
    assert.match(running.podIP ?? '', /^10\.\d+\.\d+\.\d+$/);
    assert.match(running.hostIP ?? '', /^172\.\d+\.\d+\.\d+$/);
    const agent = agents[0];
    assert.equal(agent?.runtime.size, 1);
    api.markDeleted(cluster, 'web-1');
    await until('web-1 terminated', () => api.terminated.some((t) => t.name === 'web-1'));
    assert.deepEqual(api.terminated[0], { cluster, name: 'web-1', uid: 'uid-web-1' });
    await until('web-1 forgotten', () => agent?.runtime.size === 0);
  });

  it('site agent resumes its pod watch after a drop and relists after 410', async () => {
    const agent = agents[0];
    await until('watch open', () => api.openWatches === 1);
    api.dropWatches();
    api.addPod(cluster, pod('web-2', 'edge-a-node-0'));
    await until('web-2 seen after resuming', () => agent?.runtime.size === 1);
    await until('watch reopened', () => api.openWatches === 1);
    api.dropWatches(true);
    api.deletePod(cluster, 'web-2');
    api.addPod(cluster, pod('web-3', 'edge-a-node-0'));
    await until('relisted', () => agent?.runtime.size === 1 && [...agent.runtime.keys()][0] === podKeyOf(cluster, 'web-3'));
    assert.equal(api.expiredWatches, 1);
    await until('web-3 running', () => api.statuses.some((s) => s.name === 'web-3' && s.status['phase'] === 'Running'));
  });

  it('site agent reuses its stored credential and refuses changed facts without a token', async () => {
    const home = join(root, 'edge-b');
    const sites = siteSpecsFor({ name: 'edge-b', type: 'REGIONAL_EDGE', labels: {}, nodes: 1, cpu: '4', memory: '8Gi', quota: { cpu: '2', memory: '4Gi' } });
    const first = await start({ agent: 'edge-b', sites, home, token: api.token });
    await first.close(1000);
    const registrations = api.registrations.length;
    const again = await start({ agent: 'edge-b', sites, home });
    assert.equal(api.registrations.length, registrations, 'no second registration');
    await again.firstHeartbeat;
    await until('heartbeat with the stored certificate', () => api.heartbeats.some((h) => h.subject === 'site-agent:edge-b'));
    await again.close(1000);
    const relabelled = siteSpecsFor({ name: 'edge-b', type: 'REGIONAL_EDGE', labels: { tier: 'gold' }, nodes: 1, cpu: '4', memory: '8Gi' });
    await assert.rejects(start({ agent: 'edge-b', sites: relabelled, home }), /registering again needs --registration-token/);
    await start({ agent: 'edge-b', sites: relabelled, home, token: api.token });
    assert.equal(api.registrations.length, registrations + 1);
  });

  it('site agent registers many sites in chunks with progress', async () => {
    const sites = siteSpecsFor({ name: 'many', type: 'CUSTOMER_EDGE', labels: {}, nodes: 1, cpu: '1', memory: '1Gi', simulateSites: 130 });
    const progress: string[] = [];
    const before = api.registrations.length;
    const agent = await start({ agent: 'many', sites, home: join(root, 'many'), token: api.token, registerChunkSize: 50, onProgress: (done, total) => progress.push(`${done}/${total}`) });
    assert.deepEqual(progress, ['50/130', '100/130', '130/130']);
    assert.equal(api.registrations.length - before, 3);
    assert.equal(agent.sites.length, 130);
    await agent.close(1000);
  });

  it('edgeplane site --simulate-sites runs 200 sites in one process and exits cleanly on SIGTERM', async () => {
    const home = join(root, 'sim');
    const child = spawn(
      process.execPath,
      [BIN, 'site', '--name', 'sim', '--type', 'CUSTOMER_EDGE', '--labels', 'fleet=test', '--nodes', '2', '--simulate-sites', '200', '--registration-token', api.token, '--home', home, '--heartbeat-seconds', '1', '--sim-start-ms', '50', '--log-level', 'warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await until('a heartbeat for 200 sites', () => api.heartbeats.some((h) => h.subject === 'site-agent:sim' && h.sites.length === 200), 20_000);
      assert.ok(api.sites.has('sim-000') && api.sites.has('sim-199'));
      for (const i of [0, 57, 199]) api.addPod(cluster, pod(`sim-pod-${i}`, `sim-${String(i).padStart(3, '0')}-node-1`));
      await until('pods on three simulated sites running', () => [0, 57, 199].every((i) => api.statuses.some((s) => s.name === `sim-pod-${i}` && s.status['phase'] === 'Running')));
      const watches = api.openWatches;
      assert.ok(watches >= 1);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
      assert.match(stderr, /registered 200\/200 sites/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('edgeplane site token asks the platform for a token with the config API credentials and prints it', async () => {
    const caFile = join(root, 'api-ca.crt');
    writeFileSync(caFile, api.ca);
    const result = await runCli(['site', 'token', '--server', api.url, '--token', 'test-api-token', '--ca-file', caFile, '--type', 'REGIONAL_EDGE', '--ttl', '2h']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, api.token + '\n');
    assert.deepEqual(api.tokenRequests, [{ type: 'REGIONAL_EDGE', ttl_seconds: 7200 }]);
    const refused = await runCli(['site', 'token', '--server', api.url, '--token', 'wrong', '--ca-file', caFile]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Error from server \(Unauthorized\): bad API token/);
  });
});

describe('site agent restarted while the control plane is unreachable', () => {
  it('runs the pods it persisted, without waiting for the control plane', async () => {
    const api = await FakeSiteApi.start();
    const home = mkdtempSync(join(tmpdir(), 'edgeplane-site-offline-'));
    const sites = siteSpecsFor({ name: 'edge-o', type: 'CUSTOMER_EDGE', labels: {}, nodes: 1, cpu: '4', memory: '8Gi' });
    const options = { agent: 'edge-o', sites, home, heartbeatSeconds: 1, logger, sim: { startMs: 50, stopMs: 50 }, statusFlushMs: 20, offlineState: true };
    try {
      const first = await startSiteAgent({ ...options, token: api.token });
      api.addPod(cluster, pod('kept-1', 'edge-o-node-0'));
      api.addPod(cluster, pod('kept-2', 'edge-o-node-0'));
      await until('the pods', () => first.runtime.size === 2);
      await first.close(1000);
      assert.equal(statSync(join(home, 'offline')).mode & 0o777, 0o700);
      assert.equal(statSync(join(home, 'offline', 'pods.sealed')).mode & 0o777, 0o600);
      await api.close();
      // The control plane is gone: the agent starts on its stored credential and runs the persisted pods.
      const again = await startSiteAgent(options);
      try {
        await until('the persisted pods', () => again.runtime.size === 2);
        assert.deepEqual([...again.runtime.keys()].sort(), [podKeyOf(cluster, 'kept-1'), podKeyOf(cluster, 'kept-2')]);
      } finally {
        await again.close(200);
      }
    } finally {
      await api.close().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    }
  });
});
