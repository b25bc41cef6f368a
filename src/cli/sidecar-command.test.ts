import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { IdentityTestServer } from '../sidecar/testing/identity-test-server.js';
import { parseDurationMs } from './sidecar-command.js';

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
});
