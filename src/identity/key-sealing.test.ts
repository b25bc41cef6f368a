import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { IdentityError } from './identity-error.js';
import { defaultKekPath, loadKeyEncryptionKey, withPreviousKeys } from './key-encryption-key.js';
import { kekSealer } from './key-sealer.js';
import { resealRecord, sealPrivateKey, unsealPrivateKey, type SealedKey } from './sealed-key.js';

const home = mkdtempSync(join(tmpdir(), 'edgeplane-kek-'));
after(() => rmSync(home, { recursive: true, force: true }));

const refused = (message: RegExp) => (error: unknown): boolean => error instanceof IdentityError && error.code === 'Internal' && message.test(error.message);

describe('the key-encryption key', () => {
  it('is created on first start as 32 random bytes, mode 0600 in a 0700 folder, and reused afterwards', () => {
    const dir = join(home, 'first');
    const first = loadKeyEncryptionKey({ home: dir });
    assert.equal(first.created, true);
    assert.equal(first.path, defaultKekPath(dir));
    assert.equal(first.path, join(dir, 'keys', 'identity.kek'));
    assert.equal(statSync(first.path).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'keys')).mode & 0o777, 0o700);
    assert.deepEqual(readFileSync(first.path), first.key);
    assert.equal(first.key.length, 32);
    const again = loadKeyEncryptionKey({ home: dir });
    assert.equal(again.created, false);
    assert.deepEqual(again.key, first.key);
    assert.equal(again.id, first.id);
    assert.notDeepEqual(loadKeyEncryptionKey({ home: join(home, 'second') }).key, first.key);
  });

  it('is read from an operator\'s file as raw bytes, hex or base64; a missing or malformed file is an error', () => {
    const raw = Buffer.alloc(32, 7);
    const files = { raw, hex: raw.toString('hex') + '\n', base64: raw.toString('base64') + '\n' };
    for (const [name, contents] of Object.entries(files)) {
      const file = join(home, `operator.${name}`);
      writeFileSync(file, contents, { mode: 0o600 });
      const kek = loadKeyEncryptionKey({ home, file });
      assert.deepEqual(kek.key, raw, name);
      assert.equal(kek.created, false);
    }
    assert.throws(() => loadKeyEncryptionKey({ home, file: join(home, 'absent.kek') }), /the identity key-encryption key file .*absent\.kek does not exist/);
    const short = join(home, 'short.kek');
    writeFileSync(short, Buffer.alloc(16));
    assert.throws(() => loadKeyEncryptionKey({ home, file: short }), /must hold 32 bytes \(raw, 64 hex digits or base64\), not 16 bytes/);
  });
});

describe('sealed private keys', () => {
  const kek = loadKeyEncryptionKey({ home: join(home, 'sealing') });
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const key = '/identity/tenant-cas/acme';

  it('open with the same key-encryption key and store key, as the same private key', () => {
    const sealed = sealPrivateKey(kek, key, privateKey);
    assert.equal(sealed.alg, 'A256GCM');
    assert.equal(sealed.kek, kek.id);
    assert.ok(!JSON.stringify(sealed).includes(privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64url').slice(10, 40)), 'no plaintext');
    const opened = unsealPrivateKey(kek, key, sealed);
    const signature = sign('sha256', Buffer.from('x'), opened);
    assert.equal(verify('sha256', Buffer.from('x'), publicKey, signature), true);
  });

  it('are refused when the ciphertext, tag or iv was altered', () => {
    const sealed = sealPrivateKey(kek, key, privateKey);
    const flip = (text: string): string => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
      return bytes.toString('base64url');
    };
    for (const field of ['ciphertext', 'tag', 'iv'] as const) {
      const tampered: SealedKey = { ...sealed, [field]: flip(sealed[field]) };
      assert.throws(() => unsealPrivateKey(kek, key, tampered), refused(/does not unseal: it was altered, or sealed for another record/), field);
    }
  });

  it('are refused under another store key (a record copied from another tenant\'s CA)', () => {
    const sealed = sealPrivateKey(kek, '/identity/tenant-cas/globex', privateKey);
    assert.throws(() => unsealPrivateKey(kek, key, sealed), refused(/the private key in \/identity\/tenant-cas\/acme does not unseal/));
  });

  it('are refused under another key-encryption key, naming both keys', () => {
    const other = loadKeyEncryptionKey({ home: join(home, 'other') });
    const sealed = sealPrivateKey(other, key, privateKey);
    assert.throws(() => unsealPrivateKey(kek, key, sealed), refused(new RegExp(`sealed under another key-encryption key \\(${other.id}; this server has ${kek.id} from `)));
    // A record claiming this key's id but sealed with another key fails authentication instead.
    assert.throws(() => unsealPrivateKey(kek, key, { ...sealed, kek: kek.id }), refused(/does not unseal/));
  });
});

describe('a key-encryption key rotation', () => {
  const old = loadKeyEncryptionKey({ home: join(home, 'rotation-old') });
  const fresh = loadKeyEncryptionKey({ home: join(home, 'rotation-new') });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const key = '/identity/tenant-cas/acme';

  it('opens what the previous key sealed when the server is given it, and names every key it has when none fits', () => {
    const sealed = sealPrivateKey(old, key, privateKey);
    assert.throws(() => unsealPrivateKey(fresh, key, sealed), refused(new RegExp(`sealed under another key-encryption key \\(${old.id}; this server has ${fresh.id}`)));
    const rotated = withPreviousKeys(fresh, [old.path]);
    assert.deepEqual(rotated.previous?.map((k) => k.id), [old.id]);
    unsealPrivateKey(rotated, key, sealed);
    const stranger = loadKeyEncryptionKey({ home: join(home, 'rotation-stranger') });
    assert.throws(() => unsealPrivateKey(withPreviousKeys(stranger, [old.path]), key, sealPrivateKey(fresh, key, privateKey)), refused(new RegExp(`this server has ${stranger.id} from .*, and previous ${old.id} from `)));
    // The current key given as a previous one too is ignored; a missing file is an error.
    assert.equal(withPreviousKeys(fresh, [fresh.path]).previous, undefined);
    assert.throws(() => withPreviousKeys(fresh, [join(home, 'nope.kek')]), /previous key-encryption key file .*nope\.kek does not exist/);
  });

  it('reseals a record\'s sealed keys (members and JSON strings) under the current key, and leaves a current record alone', () => {
    const record = JSON.stringify({ certificate: 'PEM', key: sealPrivateKey(old, key, privateKey), sealed_private_key: kekSealer(old).seal(Buffer.from('blindfold PEM'), key) });
    const rotated = withPreviousKeys(fresh, [old.path]);
    const resealed = resealRecord(rotated, key, record) ?? assert.fail('not resealed');
    const parsed = JSON.parse(resealed) as { certificate: string; key: SealedKey; sealed_private_key: string };
    assert.equal(parsed.certificate, 'PEM');
    assert.equal(parsed.key.kek, fresh.id);
    unsealPrivateKey(fresh, key, parsed.key);
    assert.equal(kekSealer(fresh).open(parsed.sealed_private_key, key).toString(), 'blindfold PEM');
    assert.equal(resealRecord(rotated, key, resealed), undefined);
    assert.equal(resealRecord(rotated, key, 'not json'), undefined);
  });
});
