import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createIdentityRequest } from './identity-request.js';
import type { IdentityMaterial } from './identity-material.js';
import { acceptIdentityBundle } from './accept-identity-bundle.js';
import { identityFilesOf, writeIdentityFiles } from './identity-files.js';
import { startReaderThread } from './testing/reader-thread.js';
import { TestIdentityCa } from './testing/test-identity-ca.js';

const root = mkdtempSync(join(tmpdir(), 'sidecar-files-'));
after(() => rmSync(root, { recursive: true, force: true }));

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('identity files', () => {
  let material: IdentityMaterial;
  before(async () => {
    const ca = await TestIdentityCa.create(Date.now());
    const request = await createIdentityRequest();
    material = acceptIdentityBundle(request, await ca.issue(request.csrs, { now: Date.now(), lifetimeMs: 3_600_000 }), Date.now());
  });

  it('identity files are the six files of the seed with the contract contents and modes', async () => {
    const dir = join(root, 'six', 'identity');
    await writeIdentityFiles(dir, material);
    assert.equal(statSync(dir).mode & 0o777, 0o755);
    assert.deepEqual(readdirSync(dir).sort(), ['client.crt', 'client.key', 'client_ca.crt', 'server.crt', 'server.key', 'server_ca.crt']);
    const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
    assert.equal(read('server.crt'), material.serverCertificate + material.chain, 'server.crt is the leaf then the chain');
    assert.equal(read('client.crt'), material.clientCertificate + material.chain);
    assert.equal(read('server.key'), material.serverKey);
    assert.equal(read('client.key'), material.clientKey);
    assert.equal(read('server_ca.crt'), material.serverCa);
    assert.equal(read('client_ca.crt'), material.clientCa);
    const modes = Object.fromEntries(readdirSync(dir).map((name) => [name, (statSync(join(dir, name)).mode & 0o777).toString(8)]));
    assert.deepEqual(modes, { 'client.crt': '644', 'client.key': '600', 'client_ca.crt': '644', 'server.crt': '644', 'server.key': '600', 'server_ca.crt': '644' });
  });

  it('identity files given to an owner are its, keys 0640 (its group reads them), from their first byte on', async () => {
    const dir = join(root, 'owned');
    await writeIdentityFiles(dir, material, { uid: 1000, gid: 2000 });
    const owners = Object.fromEntries(readdirSync(dir).map((name) => {
      const s = statSync(join(dir, name));
      return [name, `${s.uid}:${s.gid} ${(s.mode & 0o777).toString(8)}`];
    }));
    assert.deepEqual(owners, { 'client.crt': '1000:2000 644', 'client.key': '1000:2000 640', 'client_ca.crt': '1000:2000 644', 'server.crt': '1000:2000 644', 'server.key': '1000:2000 640', 'server_ca.crt': '1000:2000 644' });
    assert.deepEqual(identityFilesOf(material, { uid: 1, gid: 2 }).map((f) => f.owner), Array(6).fill({ uid: 1, gid: 2 }), 'the temporary files are chowned, so no file is ever the writer\'s');
  });

  it('identity files get their modes whatever the umask, and leave no temporary file', async () => {
    const dir = join(root, 'umask');
    const previous = process.umask(0o077);
    try {
      await writeIdentityFiles(dir, material);
      await writeIdentityFiles(dir, material);
    } finally {
      process.umask(previous);
    }
    assert.equal(statSync(join(dir, 'server.crt')).mode & 0o777, 0o644);
    assert.equal(statSync(join(dir, 'client.key')).mode & 0o777, 0o600);
    assert.equal(readdirSync(dir).length, 6);
  });

  it('identity files are written CA bundles first, each key before its certificate', () => {
    assert.deepEqual(identityFilesOf(material).map((f) => f.name), ['server_ca.crt', 'client_ca.crt', 'server.key', 'server.crt', 'client.key', 'client.crt']);
  });

  it('identity files are never seen half-written by a concurrent reader', async () => {
    const dir = join(root, 'concurrent');
    // Two versions of very different sizes, so a partial or truncated read cannot look whole.
    const versions = [1, 100].map((copies) => ({ ...material, chain: material.chain.repeat(copies) }));
    const expected = new Set(versions.map((v) => sha(v.serverCertificate + v.chain)));
    await writeIdentityFiles(dir, versions[0]!);
    const reader = await startReaderThread(join(dir, 'server.crt'));
    for (let i = 0; i < 20; i++) await writeIdentityFiles(dir, versions[i % 2]!);
    const seen = await reader.stop();
    const unexpected = seen.filter(([digest]) => !expected.has(digest));
    assert.deepEqual(unexpected, [], 'every read is one whole version');
    assert.equal(seen.length, 2, 'the reader saw both versions, so it did read while files were replaced');
  });
});
