import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BLINDFOLD_TYP, parseBlindfold, wrapLocation } from './blindfold-format.js';
import { SecretError, type SecretErrorCode } from './secret-error.js';

const b64url = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const HEADER = {
  alg: 'RSA-OAEP-256',
  enc: 'A256GCM',
  typ: BLINDFOLD_TYP,
  tenant: 'acme',
  key_version: 2,
  policy_id: '12345',
  policy_namespace: 'shared',
  policy_name: 'allow-web',
};
const REST = ['wrapped-key', 'initialvector', 'ciphertext', 'tag-of-16-bytes!'].map((p) => b64url(p)).join('.');
const jwe = (header: unknown): string => `${b64url(header)}.${REST}`;

function fails(location: string, code: SecretErrorCode): void {
  assert.throws(() => parseBlindfold(location), (error: unknown) => error instanceof SecretError && error.code === code);
}

describe('parseBlindfold', () => {
  it('reads the header of a well-formed blob', () => {
    assert.deepEqual(parseBlindfold(wrapLocation(jwe(HEADER))).header, HEADER);
  });

  it('is NotBlindfold for anything that is not a string:/// URL of a five-part JWE', () => {
    fails('vault:///abc', 'NotBlindfold');
    fails('string:///', 'NotBlindfold');
    fails('string:///not base64!', 'NotBlindfold');
    fails(`string:///${Buffer.from('a.b.c').toString('base64')}`, 'NotBlindfold');
    fails(wrapLocation(`${b64url('{not json')}.${REST}`), 'NotBlindfold');
    fails(wrapLocation(`${b64url(HEADER)}..${REST.split('.').slice(1).join('.')}`), 'NotBlindfold');
  });

  it('is NotBlindfold for base64 that decoders accept but is not canonical (altered padding bits)', () => {
    const location = wrapLocation(jwe(HEADER));
    // The tag segment is 16 bytes: its last base64url character carries 4 unused bits.
    const parts = Buffer.from(location.slice('string:///'.length), 'base64').toString().split('.');
    const tag = parts[4] as string;
    const altered = tag.slice(0, -1) + String.fromCharCode(tag.charCodeAt(tag.length - 1) + 1);
    assert.deepEqual(Buffer.from(altered, 'base64url'), Buffer.from(tag, 'base64url'));
    fails(wrapLocation([...parts.slice(0, 4), altered].join('.')), 'NotBlindfold');
  });

  it('is NotBlindfold when a header member is missing, malformed or unknown', () => {
    const { tenant: _tenant, ...noTenant } = HEADER;
    fails(wrapLocation(jwe(noTenant)), 'NotBlindfold');
    fails(wrapLocation(jwe({ ...HEADER, typ: 'JWT' })), 'NotBlindfold');
    fails(wrapLocation(jwe({ ...HEADER, key_version: 0 })), 'NotBlindfold');
    fails(wrapLocation(jwe({ ...HEADER, key_version: '2' })), 'NotBlindfold');
    fails(wrapLocation(jwe({ ...HEADER, policy_id: '2147483648' })), 'NotBlindfold');
    fails(wrapLocation(jwe({ ...HEADER, policy_name: 'Not_A_Name' })), 'NotBlindfold');
    fails(wrapLocation(jwe({ ...HEADER, zip: 'DEF' })), 'NotBlindfold');
  });

  it('is UnknownAlgorithm for registered JWE algorithms other than RSA-OAEP-256 with A256GCM, NotBlindfold for made-up ones', () => {
    fails(wrapLocation(jwe({ ...HEADER, enc: 'A128GCM' })), 'UnknownAlgorithm');
    fails(wrapLocation(jwe({ ...HEADER, alg: 'ECDH-ES+A256KW' })), 'UnknownAlgorithm');
    fails(wrapLocation(jwe({ ...HEADER, enc: 'A256GCN' })), 'NotBlindfold');
  });
});
