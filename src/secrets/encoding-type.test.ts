import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeSecret, EncodingError, parseEncodingType } from './encoding-type.js';

describe('encoding types', () => {
  it('EncodingNone returns the bytes as they are; EncodingBase64 returns the original of Base64 text', () => {
    const binary = Buffer.from([0, 255, 10, 13, 128, 61]);
    assert.deepEqual(decodeSecret(binary, 'EncodingNone'), binary);
    assert.deepEqual(decodeSecret(Buffer.from(binary.toString('base64') + '\n'), 'EncodingBase64'), binary);
  });

  it('refuses text that is not Base64 and unknown encoding types', () => {
    assert.throws(() => decodeSecret(Buffer.from('not base64!'), 'EncodingBase64'), EncodingError);
    assert.throws(() => decodeSecret(Buffer.from('abc'), 'EncodingBase64'), EncodingError);
    assert.equal(parseEncodingType(undefined), 'EncodingNone');
    assert.equal(parseEncodingType('EncodingBase64'), 'EncodingBase64');
    assert.throws(() => parseEncodingType('EncodingHex'), /is not one of EncodingNone, EncodingBase64/);
  });
});
