import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRegistrationToken } from './registration-token.js';

const PIN = 'sha256:' + 'ab'.repeat(32);
const encode = (payload: unknown): string => 'ept1.' + Buffer.from(JSON.stringify(payload)).toString('base64url');

describe('parseRegistrationToken', () => {
  it('registration token parses its id, secret, CA pin and server', () => {
    const raw = encode({ id: 'k3x9', secret: 's3cret', ca: PIN.toUpperCase().replace('SHA256', 'sha256'), server: 'https://cp.example:6443/' });
    const token = parseRegistrationToken(`  ${raw}\n`);
    assert.deepEqual(token, { id: 'k3x9', secret: 's3cret', ca: PIN, server: 'https://cp.example:6443', raw });
  });

  it('registration token is refused with a message naming the problem', () => {
    const cases: Array<[string, RegExp]> = [
      ['abc.def', /does not start with "ept1\."/],
      ['ept1.***', /not base64url/],
      ['ept1.' + Buffer.from('not json').toString('base64url'), /does not hold JSON/],
      [encode(['a']), /not hold a JSON object/],
      [encode({ secret: 's', ca: PIN, server: 'https://x' }), /has no "id"/],
      [encode({ id: 'i', secret: 's', ca: 'sha1:abcd', server: 'https://x' }), /"ca" is not sha256/],
      [encode({ id: 'i', secret: 's', ca: PIN, server: 'http://x' }), /not an https URL/],
      [encode({ id: 'i', secret: 's', ca: PIN, server: 'nope' }), /not a URL/],
    ];
    for (const [text, message] of cases) assert.throws(() => parseRegistrationToken(text), message, text);
  });

  it('registration token errors never echo the secret', () => {
    const text = encode({ id: 'i', secret: 'TOPSECRET', ca: 'bad', server: 'https://x' });
    assert.throws(() => parseRegistrationToken(text), (error: Error) => !error.message.includes('TOPSECRET'));
  });
});
