import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { fakeClock } from '../common/clock.js';
import { BootstrapTokens, type TokenBinding } from './bootstrap-tokens.js';
import { IdentityError } from './identity-error.js';
import { TOKEN_SIGNING_KEY } from './identity-records.js';
import { startIdentityFixture, type IdentityFixture } from './testing/identity-fixture.js';
import { loadTokenSigningKey, type TokenSigningKey } from './token-signing-key.js';

const START = new Date('2026-03-01T12:00:00Z');
const PIN = 'sha256:' + 'ab'.repeat(32);
const binding: TokenBinding = { tenant: 'acme', namespace: 'default', vk8s: 'vk1', site: 're-a', pod: { name: 'web-1', uid: 'uid-1' } };

describe('bootstrap tokens', () => {
  let fixture: IdentityFixture;
  let key: TokenSigningKey;
  const clock = fakeClock(START);
  let tokens: BootstrapTokens;
  before(async () => {
    fixture = await startIdentityFixture(clock);
    key = await loadTokenSigningKey({ store: fixture.store, kek: fixture.kek, clock });
    tokens = new BootstrapTokens(key, clock, PIN);
  });
  after(async () => {
    await fixture?.close();
  });

  const refused = (message: RegExp) => (error: unknown): boolean => error instanceof IdentityError && error.code === 'Unauthenticated' && message.test(error.message);
  /** A token signed with `signer` (default the service's key) with the claims changed by `edit`. */
  const forged = async (edit: (jwt: SignJWT) => SignJWT, signer = key.privateKey, kid = key.kid): Promise<string> => {
    const now = Math.floor(clock.now().getTime() / 1000);
    const jwt = new SignJWT({ 'edgeplane.io': binding, ca_pin: PIN }).setProtectedHeader({ alg: 'ES256', kid }).setIssuer('edgeplane').setAudience('edgeplane-identity').setSubject('system:pod:default:vk1:web-1').setIssuedAt(now).setNotBefore(now).setExpirationTime(now + 600).setJti('j');
    return edit(jwt).sign(signer);
  };

  it('carry the contract\'s header and claims and verify back to their pod binding', async () => {
    const { token, expiresAt } = await tokens.sign(binding, 600);
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'ES256', typ: 'JWT', kid: key.kid });
    const claims = decodeJwt(token);
    const now = START.getTime() / 1000;
    assert.deepEqual({ ...claims, jti: typeof claims.jti }, {
      'edgeplane.io': { tenant: 'acme', namespace: 'default', vk8s: 'vk1', site: 're-a', pod: { name: 'web-1', uid: 'uid-1' } },
      ca_pin: PIN,
      iss: 'edgeplane',
      aud: 'edgeplane-identity',
      sub: 'system:pod:default:vk1:web-1',
      iat: now,
      nbf: now,
      exp: now + 600,
      jti: 'string',
    });
    assert.equal(expiresAt.toISOString(), '2026-03-01T12:10:00.000Z');
    assert.deepEqual(await tokens.verify(token), binding);
    assert.notEqual(decodeJwt((await tokens.sign(binding, 600)).token).jti, claims.jti);
  });

  it('are signed with a key kept sealed in the store and shared by every server', async () => {
    const kv = await fixture.store.get(TOKEN_SIGNING_KEY);
    assert.ok(kv !== undefined);
    assert.doesNotMatch(kv.value, /PRIVATE KEY/);
    const again = await loadTokenSigningKey({ store: fixture.store, kek: fixture.kek, clock });
    assert.equal(again.kid, key.kid);
    const { token } = await tokens.sign(binding, 60);
    assert.deepEqual(await new BootstrapTokens(again, clock, PIN).verify(token), binding);
  });

  it('are refused once expired (past the 30 s clock tolerance), and before their nbf', async () => {
    const { token } = await tokens.sign(binding, 60);
    clock.advance(85_000);
    assert.deepEqual(await tokens.verify(token), binding, 'within the tolerance');
    clock.advance(10_000);
    await assert.rejects(tokens.verify(token), refused(/^the bootstrap token is not valid: it expired at 2026-03-01T12:01:00\.000Z$/));
    const early = await tokens.sign(binding, 600);
    clock.advance(-60_000);
    await assert.rejects(tokens.verify(early.token), refused(/claim "nbf"/));
    clock.advance(-35_000);
  });

  it('are refused with another audience or issuer, or a subject that does not match the pod', async () => {
    await assert.rejects(tokens.verify(await forged((j) => j.setAudience('kubernetes'))), refused(/claim "aud"/));
    await assert.rejects(tokens.verify(await forged((j) => j.setIssuer('someone'))), refused(/claim "iss"/));
    await assert.rejects(tokens.verify(await forged((j) => j.setSubject('system:pod:default:vk1:other'))), refused(/does not name a pod/));
    assert.deepEqual(await tokens.verify(await forged((j) => j)), binding, 'the forging helper itself makes valid tokens');
  });

  it('are refused when the signature does not verify, the key is unknown, or the payload was altered', async () => {
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    await assert.rejects(tokens.verify(await forged((j) => j, stranger)), refused(/its signature does not verify/));
    await assert.rejects(tokens.verify(await forged((j) => j, stranger, 'other-kid')), refused(/signed with key "other-kid", which this service does not have/));
    const [header, payload, signature] = (await tokens.sign(binding, 600)).token.split('.');
    const altered = Buffer.from(JSON.stringify({ ...decodeJwt(`${header}.${payload}.${signature}`), 'edgeplane.io': { ...binding, site: 're-b' } })).toString('base64url');
    await assert.rejects(tokens.verify(`${header}.${altered}.${signature}`), refused(/its signature does not verify/));
    await assert.rejects(tokens.verify('not-a-jwt'), refused(/^the bootstrap token is not valid: /));
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    await assert.rejects(tokens.verify(unsigned), refused(/^the bootstrap token is not valid: /));
  });
});
