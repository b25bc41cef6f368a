import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { IdentityTestServer } from '../sidecar/testing/identity-test-server.js';
import { TcpRelay } from '../client/testing/tcp-relay.js';
import { parseDurationMs, parseIdentityOwner } from './sidecar-command.js';

const BIN = new URL('../../../bin/edgeplane.js', import.meta.url).pathname;

function status(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${url}/status`, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('edgeplane sidecar', () => {
  let server: IdentityTestServer;
  let dir: string;
  before(async () => {
    server = await IdentityTestServer.start();
    dir = mkdtempSync(join(tmpdir(), 'sidecar-cli-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('edgeplane sidecar becomes READY and exits 0 on SIGTERM', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, await server.mintToken());
    const child = spawn(process.execPath, [BIN, 'sidecar', '--server', server.url, '--token-file', tokenFile, '--identity-dir', join(dir, 'identity'), '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const listening = stdout.split('\n').find((line) => line.includes('"sidecar listening"'));
        if (listening !== undefined) resolve((JSON.parse(listening) as { urls: string[] }).urls[0]!);
      });
      void exited.then((code) => reject(new Error(`exited with ${code} before listening: ${stdout}`)));
    });
    for (let i = 0; i < 100 && (await status(url)) !== 'READY'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await status(url), 'READY');
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(stdout, /"msg":"sidecar stopped"/);
  });

  it('edgeplane sidecar --connect-to reaches the server through a relay, and --state-file follows its state', async () => {
    const named = await IdentityTestServer.start({ names: ['cp.test'] });
    const relay = await TcpRelay.start({ host: '127.0.0.1', port: Number(new URL(named.url).port) });
    try {
      const tokenFile = join(dir, 'relay-token');
      writeFileSync(tokenFile, await named.mintToken());
      const stateFile = join(dir, 'relay-state', 'state.json');
      const args = [BIN, 'sidecar', '--server', 'https://cp.test:6443', '--connect-to', relay.address, '--state-file', stateFile, '--token-file', tokenFile, '--identity-dir', join(dir, 'relay-identity'), '--listen', '127.0.0.1:0'];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const state = (): string => (existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { state: string }).state : 'none');
      for (let i = 0; i < 200 && state() !== 'READY'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(state(), 'READY');
      assert.deepEqual(named.requests.map((r) => r.path), ['/api/sites/v1/ca', '/api/identity/v1/certificates']);
      assert.equal(relay.connections, 2, 'both requests went through the relay');
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      await relay.close();
      await named.close();
    }
  });

  it('edgeplane sidecar documents --connect-to and --state-file, and names a bad --connect-to', () => {
    const help = spawnSync(process.execPath, [BIN, 'sidecar', '--help'], { encoding: 'utf8' });
    assert.match(help.stdout, /--connect-to <host:port>/);
    assert.match(help.stdout, /--state-file <file>/);
    const bad = spawnSync(process.execPath, [BIN, 'sidecar', '--server', 'https://cp:6443', '--token-file', 't', '--connect-to', 'relay'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /option '--connect-to <host:port>' argument 'relay' is invalid\. "relay" is not host:port/);
  });

  it('edgeplane sidecar refuses a non-loopback --listen with a clear error', async () => {
    const child = spawn(process.execPath, [BIN, 'sidecar', '--server', server.url, '--token-file', join(dir, 'token'), '--listen', '0.0.0.0:8070'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    assert.match(stderr, /edgeplane: --listen 0\.0\.0\.0:8070: the sidecar serves private keys without authentication, so it listens on loopback addresses only/);
  });

  it('sidecar durations accept ms, s, m and h', () => {
    assert.deepEqual(['500ms', '30', '30s', '5m', '1.5h'].map(parseDurationMs), [500, 30_000, 30_000, 300_000, 5_400_000]);
    assert.throws(() => parseDurationMs('5 minutes'), /"5 minutes" is not a duration like 500ms, 30s, 5m or 1h/);
  });

  it('--identity-owner takes <uid>:<gid> as numbers', () => {
    assert.deepEqual(parseIdentityOwner('1000:2000'), { uid: 1000, gid: 2000 });
    assert.deepEqual(parseIdentityOwner('0:0'), { uid: 0, gid: 0 });
    for (const bad of ['1000', 'app:app', '1000:', '-1:0', '4294967295:0']) assert.throws(() => parseIdentityOwner(bad), /is not <uid>:<gid>/, bad);
  });
});
