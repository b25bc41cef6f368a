import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { unmount } from '../../../host/index.js';
import { sidecarStateFile, sidecarTokenFile } from './sidecar-launch.js';
import { SidecarLauncher } from './sidecar-start.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'sidecar-start-')));
const runDir = join(work, 'sidecar-run');
after(async () => {
  await unmount(runDir);
  rmSync(work, { recursive: true, force: true });
});

let minted = 0;
const launcher = new SidecarLauncher({
  installation: { server: 'https://cp.example', installation: ['/opt/edgeplane'], main: '/opt/edgeplane/sidecar.js', node: '/usr/bin/node' },
  relay: '10.244.0.1:8443',
  identityToken: () => Promise.resolve(`token-${++minted}`),
  resolveImage: () => Promise.resolve(undefined),
});
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', uid: 'u1' }, spec: { containers: [{ name: 'app' }, { name: 'edgeplane-sidecar' }] } };
const prepare = (): ReturnType<SidecarLauncher['prepare']> =>
  launcher.prepare(pod, { cluster: { tenant: 't1', namespace: 'default', name: 'vk1' }, name: 'web', uid: 'u1' }, runDir, { name: 'edgeplane-sidecar' });

it('a start writes the bootstrap token in the sidecar\'s folder as a new file, never through a link the sidecar\'s container left there (root)', async () => {
  await prepare();
  assert.equal(readFileSync(sidecarTokenFile(runDir), 'utf8'), 'token-1');
  // A host file that happens to read as a halted state: what the link would make the agent report.
  const host = join(work, 'host-file');
  const hostText = JSON.stringify({ state: 'HALTED', reason: 'a host file' });
  writeFileSync(host, hostText);
  for (const file of [sidecarTokenFile(runDir), sidecarStateFile(runDir)]) {
    rmSync(file, { force: true });
    symlinkSync(host, file);
  }
  assert.deepEqual(await launcher.readiness(runDir, true), { ready: false }, 'the state is not read through the link');
  await prepare();
  assert.equal(readFileSync(host, 'utf8'), hostText, 'the file the link named is untouched');
  assert.ok(lstatSync(sidecarTokenFile(runDir)).isFile());
  assert.equal(readFileSync(sidecarTokenFile(runDir), 'utf8'), 'token-2');
  assert.equal(lstatSync(sidecarTokenFile(runDir)).mode & 0o777, 0o600);
});
