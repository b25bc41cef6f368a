import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EDGEPLANE_BIN, startServer } from './support/server-process.js';

const run = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, [EDGEPLANE_BIN, ...args], { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });

/** `edgeplane server`'s identity options: the operator's key-encryption key, the CA key algorithm, the certificate lifetime. */
describe('edgeplane server identity options', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-identity-options-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('are listed by --help and checked before the server starts', async () => {
    const help = await run(['server', '--help']);
    assert.match(help.stdout, /--identity-kek-file <file>/);
    assert.match(help.stdout, /--identity-key-algorithm <algorithm>\s+key algorithm of identity CAs made from now on \(choices: "ECDSA_P256", "RSA_2048", default: "ECDSA_P256"/);
    assert.match(help.stdout, /--identity-certificate-lifetime <duration>/);
    const badAlgorithm = await run(['server', '--home', join(root, 'bad'), '--identity-key-algorithm', 'DSA']);
    assert.equal(badAlgorithm.code, 1);
    assert.match(badAlgorithm.stderr, /option '--identity-key-algorithm <algorithm>' argument 'DSA' is invalid\. Allowed choices are ECDSA_P256, RSA_2048\./);
    const badLifetime = await run(['server', '--home', join(root, 'bad'), '--identity-certificate-lifetime', '30s']);
    assert.equal(badLifetime.code, 1);
    assert.match(badLifetime.stderr, /at least 1m/);
  });

  it('use an operator\'s key file and RSA-2048; a later start with another key refuses to run', async () => {
    const home = join(root, 'home');
    const kek = join(root, 'operator.kek');
    writeFileSync(kek, 'ab'.repeat(32) + '\n', { mode: 0o600 });
    const server = await startServer(home, ['--identity-kek-file', kek, '--identity-key-algorithm', 'RSA_2048', '--identity-certificate-lifetime', '2h']);
    try {
      const kekLog = server.logs.find((l) => l['msg'] === 'identity key-encryption key ready');
      assert.equal(kekLog?.['path'], kek);
      assert.equal(kekLog?.['created'], false);
      assert.equal(server.logs.find((l) => l['msg'] === 'identity root CA ready')?.['algorithm'], 'RSA_2048');
      assert.equal(existsSync(join(home, 'keys', 'identity.kek')), false, 'no key file of its own');
    } finally {
      await server.stop();
    }

    const refused = await run(['server', '--home', home, '--listen', '127.0.0.1:0']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the private key in \/identity\/root-ca was sealed under another key-encryption key/);
    assert.equal(statSync(join(home, 'keys', 'identity.kek')).mode & 0o777, 0o600, 'the default key file was made (and is not the one that sealed the keys)');
  });
});
