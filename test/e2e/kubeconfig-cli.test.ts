import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl120 } from '../../src/vk8s/testing/kubectl.js';
import { EDGEPLANE_BIN, startServer, type ServerProcess } from './support/server-process.js';

describe('edgeplane kubeconfig against a real server, used by kubectl', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-kubeconfig-'));
  const home = join(root, 'home');
  let server: ServerProcess;
  const run = (command: string, args: string[]): { status: number | null; stdout: string; stderr: string } => {
    const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, EDGEPLANE_HOME: home } });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const cli = (args: string[]): ReturnType<typeof run> => run(process.execPath, [EDGEPLANE_BIN, ...args]);
  before(async () => {
    server = await startServer(home);
  });
  after(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('writes a 0600 kubeconfig that kubectl uses; revoking its credential makes kubectl unauthorized', () => {
    const kubectl = kubectl120();
    const file = join(root, 'kubeconfig');
    const vk8s = spawnSync(process.execPath, [EDGEPLANE_BIN, 'config', 'create', 'virtual_k8s', '-f', '-'], { input: JSON.stringify({ metadata: { name: 'vk1' }, spec: {} }), encoding: 'utf8', env: { ...process.env, EDGEPLANE_HOME: home } });
    assert.equal(vk8s.status, 0, vk8s.stderr);
    const issued = cli(['kubeconfig', '--namespace', 'default', '--vk8s', 'vk1', '--name', 'kc1', '--file', file]);
    assert.equal(issued.status, 0, issued.stderr);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const ctl = (args: string[]): ReturnType<typeof run> => run(kubectl, ['--kubeconfig', file, '--cache-dir', join(root, 'cache'), ...args]);
    const created = ctl(['create', 'configmap', 'cm1', '--from-literal=a=b']);
    assert.equal(created.status, 0, created.stderr);
    assert.equal(created.stdout, 'configmap/cm1 created\n');
    assert.match(ctl(['get', 'configmap', 'cm1', '-o', 'jsonpath={.data.a}']).stdout, /^b$/);
    assert.equal(cli(['token', 'revoke', 'kc1']).status, 0);
    const refused = ctl(['get', 'configmaps']);
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr, 'error: You must be logged in to the server (Unauthorized)\n');
  });

  it('has --help', () => {
    assert.match(cli(['kubeconfig', '--help']).stdout, /^Usage: edgeplane kubeconfig /);
  });
});
