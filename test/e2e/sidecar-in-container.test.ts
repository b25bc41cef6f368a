import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { TcpRelay } from '../../src/client/testing/tcp-relay.js';
import { IdentityTestServer } from '../../src/sidecar/testing/identity-test-server.js';
import { type BindMount, containerCapabilities, type ContainerFiles, containerOciSpec, containerResources, hostImagePlan, inspectHost, prepareRoot, RuncContainers } from '../../src/site-agent/runtimes/runc/index.js';
import { removeCgroup } from '../../src/site-agent/host/index.js';
import { tool, toolPath } from '../../src/testing/tools.js';
import { EDGEPLANE_BIN } from './support/server-process.js';

// The sidecar as a runc site runs it: root in a container whose root file system is read-only
// (a host-image view), its identity folder a tmpfs the site mounted (already holding what an
// earlier run left), the token and the state file in folders of their own, the control plane
// reached only through a relay (`--connect-to`). Needs root, runc, conmon and busybox (mount).

const suffix = randomBytes(3).toString('hex');
const id = `sidecar-ro-${suffix}`;
const cgroupParent = `/edgeplane-test-${suffix}`;
const REPO = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function status(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`http://127.0.0.1:${port}/status`, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('the sidecar in a container with a read-only root file system', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-container-'));
  const rootfs = join(dir, 'rootfs');
  const identity = join(dir, 'identity');
  const tokenDir = join(dir, 'token');
  const stateDir = join(dir, 'state');
  const files: ContainerFiles = { bundle: join(dir, 'bundle'), log: join(dir, 'ctr.log'), exitDir: join(dir, 'exits'), persistDir: join(dir, 'persist'), socketDir: join(dir, 'sockets') };
  const containers = new RuncContainers(tool('runc'), tool('conmon'), join(dir, 'runc'));
  const busybox = toolPath('busybox');
  let server: IdentityTestServer;
  let relay: TcpRelay;
  let mounted = false;
  let created = false;

  before(async () => {
    server = await IdentityTestServer.start({ names: ['cp.test'] });
    relay = await TcpRelay.start({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
    for (const folder of [identity, tokenDir, stateDir, files.bundle, files.exitDir, files.persistDir, files.socketDir]) mkdirSync(folder, { recursive: true });
    execFileSync(busybox, ['mount', '-t', 'tmpfs', '-o', 'mode=1777,size=1m', 'tmpfs', identity]);
    mounted = true;
  });

  after(async () => {
    if (created) await containers.delete(id, true).catch(() => undefined);
    await removeCgroup(cgroupParent).catch(() => undefined);
    if (mounted) execFileSync(busybox, ['umount', identity]);
    await relay?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sidecar as root on a read-only root becomes READY through the relay, writing only its identity tmpfs and state folder', async () => {
    writeFileSync(join(tokenDir, 'token'), await server.mintToken());
    chmodSync(tokenDir, 0o555);
    // What an earlier run of the sidecar container left in the pod's tmpfs: a half-written key, a broken certificate.
    writeFileSync(join(identity, 'server.key.1.tmp'), 'half', { mode: 0o600 });
    writeFileSync(join(identity, 'client.crt'), 'not a certificate');
    const port = await freePort();
    const binds: BindMount[] = [
      { source: REPO, destination: REPO, readOnly: true },
      { source: '/work/main/node_modules', destination: '/work/main/node_modules', readOnly: true },
      { source: identity, destination: '/svc/secrets/identity', readOnly: false },
      { source: tokenDir, destination: '/var/run/edgeplane', readOnly: true },
      { source: stateDir, destination: '/run/edgeplane-state', readOnly: false },
    ].filter((bind) => existsSync(bind.source));
    const plan = hostImagePlan(inspectHost);
    prepareRoot(rootfs, plan, binds);
    const spec = containerOciSpec({
      rootfs,
      readOnlyRootfs: true,
      args: [
        process.execPath, EDGEPLANE_BIN, 'sidecar',
        '--server', 'https://cp.test:6443', '--connect-to', relay.address,
        '--token-file', '/var/run/edgeplane/token', '--state-file', '/run/edgeplane-state/state.json',
        '--listen', `127.0.0.1:${port}`, '--log-format', 'json',
      ],
      env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
      cwd: '/',
      uid: 0,
      gid: 0,
      additionalGids: [],
      terminal: false,
      capabilities: containerCapabilities(undefined),
      noNewPrivileges: true,
      oomScoreAdj: 0,
      resources: containerResources(undefined, 256),
      cgroupsPath: `${cgroupParent}/${id}`,
      // The test's own network namespace: the relay and the status port are on its loopback.
      netns: `/proc/${process.pid}/ns/net`,
      hostname: id,
      binds: [...plan.binds, ...binds],
      annotations: {},
    });
    writeFileSync(join(files.bundle, 'config.json'), JSON.stringify(spec));
    await containers.create(id, files);
    created = true;
    await containers.start(id);
    const log = (): string => (existsSync(files.log) ? readFileSync(files.log, 'utf8') : '');
    const state = (): string => (existsSync(join(stateDir, 'state.json')) ? (JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')) as { state: string }).state : 'none');
    for (let i = 0; i < 300 && state() !== 'READY' && (await containers.exitCode(id, files)) === undefined; i++) await delay(50);
    assert.equal(state(), 'READY', `the sidecar's log:\n${log()}`);
    assert.equal(await status(port), 'READY');
    assert.ok(relay.connections >= 2, 'the CA and the bootstrap went through the relay');

    await containers.kill(id, 'SIGTERM');
    let code: number | undefined;
    for (let i = 0; i < 200 && (code = await containers.exitCode(id, files)) === undefined; i++) await delay(50);
    assert.equal(code, 0, log());

    assert.deepEqual(readdirSync(identity).sort(), ['client.crt', 'client.key', 'client_ca.crt', 'server.crt', 'server.key', 'server_ca.crt']);
    assert.equal(statSync(join(identity, 'server.key')).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(stateDir), ['state.json']);
    const levels = log()
      .split('\n')
      .map((line) => /"level":(\d+)/.exec(line)?.[1])
      .filter((level): level is string => level !== undefined)
      .map(Number);
    assert.ok(levels.length > 0 && levels.every((level) => level < 40), `nothing logged at warn or above (no write refused):\n${log()}`);
    assert.match(log(), /removed temporary files an earlier run left/);
  });
});
