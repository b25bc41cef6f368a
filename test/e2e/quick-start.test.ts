import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { kubectl120, runKubectl } from '../../src/vk8s/testing/kubectl.js';
import { siteNamespaceName } from '../../src/site-agent/runtimes/runc/index.js';
import { startServer, type ServerProcess } from './support/server-process.js';
import { waitFor } from './support/wait-for.js';

type Kubeconfig = { clusters: Array<{ cluster: { server: string } }>; users: Array<{ user: Record<string, string> }> };

/** `npm start` is `edgeplane server --local-sites`: it must end ready for kubectl. */
describe('quick start: edgeplane server --local-sites leaves a virtual cluster and its kubeconfig', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-quick-start-'));
  const home = join(root, 'home');
  const kubeconfig = join(home, 'kubeconfig');
  const localCeNetns = siteNamespaceName(join(home, 'sites', 'local-ce'), 'local-ce-1');
  after(() => rmSync(root, { recursive: true, force: true }));

  const start = async (args: string[] = []): Promise<ServerProcess> => {
    const server = await startServer(home, ['--local-sites', ...args]);
    await waitFor('the quick start to finish', () => Promise.resolve(server.stderr().includes('This terminal keeps the server') ? true : undefined), {
      timeoutMs: 30_000,
      describe: () => server.stderr(),
    });
    return server;
  };
  const messages = (server: ServerProcess): unknown[] => server.logs.map((l) => l['msg']);

  it('first start: creates default/vk8s, writes <home>/kubeconfig (0600), prints the next steps; kubectl 1.20 gets the local sites\' nodes', async () => {
    const server = await start(['--log-level', 'debug']);
    try {
      assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
      assert.ok(messages(server).includes('virtual cluster created'));
      const config = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
      assert.equal(config.clusters[0]?.cluster.server, `${server.url}/api/vk8s/namespaces/default/vk8s`);
      assert.match(server.stderr(), new RegExp(`export KUBECONFIG=${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
      assert.match(server.stderr(), /kubectl get nodes/);
      assert.match(server.stderr(), new RegExp(`admin token \\(tenant acme\\) is in ${join(home, 'api-token').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

      const run = await runKubectl(kubectl120(), ['get', 'nodes', '-o', 'name'], { kubeconfig, cacheDir: join(root, 'cache') });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(run.stdout.trim().split('\n').sort(), ['node/local-ce-1-node-0', 'node/local-re-1-node-0', 'node/local-re-2-node-0']);

      // Quieter terminal: the sites' heartbeats are logged at debug only; their state changes at info.
      const heartbeats = server.logs.filter((l) => l['msg'] === 'request' && l['url'] === '/api/sites/v1/heartbeat');
      assert.ok(heartbeats.length > 0, 'the local sites heartbeat');
      assert.deepEqual(new Set(heartbeats.map((l) => l['level'])), new Set([20]));
      assert.deepEqual(server.logs.filter((l) => l['msg'] === 'site state changed').map((l) => l['site']).sort(), ['local-ce-1', 'local-re-1', 'local-re-2']);
      // Tests run as root with runc provisioned: the customer edge runs real pods, and says so.
      assert.ok(messages(server).includes('local customer edge running real pods (runc runtime, --host-image)'), server.stderr());
      assert.ok(existsSync(`/var/run/netns/${localCeNetns}`), 'the local customer edge has its network');
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.ok(!existsSync(`/var/run/netns/${localCeNetns}`), 'stopping the server removes the local site\'s pods and network');
  });

  it('restart: keeps the cluster and the credential; only the server URL of the kubeconfig follows the new port', async () => {
    const before = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
    const server = await start();
    try {
      assert.ok(!messages(server).includes('virtual cluster created'));
      assert.ok(!messages(server).includes('kubeconfig written'));
      const now = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
      assert.deepEqual(now.users, before.users);
      assert.equal(now.clusters[0]?.cluster.server, `${server.url}/api/vk8s/namespaces/default/vk8s`);
      assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
      const run = await runKubectl(kubectl120(), ['get', 'nodes', '-o', 'name'], { kubeconfig, cacheDir: join(root, 'cache') });
      assert.equal(run.status, 0, run.stderr);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('a kubeconfig that is not the one it wrote is left as it is', async () => {
    const mine = 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\ncurrent-context: ""\n';
    writeFileSync(kubeconfig, mine, { mode: 0o600 });
    const server = await start();
    try {
      assert.equal(readFileSync(kubeconfig, 'utf8'), mine);
      assert.match(server.stderr(), /is not the one edgeplane writes; it was left as it is/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
