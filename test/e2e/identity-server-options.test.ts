import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
    assert.match(help.stdout, /--identity-kek-file <file>\s+key-encryption key sealing the platform CA's and the identity service's private keys in the store and encrypting secrets at rest[^;]*; give every server over one store the same file/);
    assert.match(help.stdout, /start every\nserver with the same --identity-kek-file; a server whose key cannot open them does not start/);
    assert.match(help.stdout, /--identity-key-algorithm <algorithm>\s+key algorithm of identity CAs made from now on \(choices: "ECDSA_P256", "RSA_2048", default: "ECDSA_P256"/);
    assert.match(help.stdout, /--identity-certificate-lifetime <duration>/);
    const badAlgorithm = await run(['server', '--home', join(root, 'bad'), '--identity-key-algorithm', 'DSA']);
    assert.equal(badAlgorithm.code, 1);
    assert.match(badAlgorithm.stderr, /option '--identity-key-algorithm <algorithm>' argument 'DSA' is invalid\. Allowed choices are ECDSA_P256, RSA_2048\./);
    const badLifetime = await run(['server', '--home', join(root, 'bad'), '--identity-certificate-lifetime', '30s']);
    assert.equal(badLifetime.code, 1);
    assert.match(badLifetime.stderr, /at least 1m/);
    assert.match(help.stdout, /--identity-customer-edge-certificate-lifetime <duration>/);
    const badEdgeLifetime = await run(['server', '--home', join(root, 'bad'), '--identity-customer-edge-certificate-lifetime', '30s']);
    assert.equal(badEdgeLifetime.code, 1);
    assert.match(badEdgeLifetime.stderr, /at least 1m/);
  });

  it('use an operator\'s key file and RSA-2048; a server with another key does not start, and says why', async () => {
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
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');

    // Without the operator's file this home's own key is made, which did not seal the platform CA and the identity keys.
    const other = await run(['server', '--home', home, '--listen', '127.0.0.1:0']);
    assert.equal(other.code, 1);
    assert.equal(statSync(join(home, 'keys', 'identity.kek')).mode & 0o777, 0o600);
    assert.match(
      other.stderr,
      /^edgeplane: the platform CA in the store cannot be opened with this server's key-encryption key: the private key in \/identity\/platform-ca was sealed under another key-encryption key \([0-9a-f]{16}; this server has [0-9a-f]{16} from .*identity\.kek\)\. Servers over one store share the platform CA: give every server the same --identity-kek-file\n$/,
    );
    assert.equal(readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), ca, 'no other CA');
  });
});
