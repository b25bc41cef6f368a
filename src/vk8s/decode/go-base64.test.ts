import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeGoBase64 } from './go-base64.js';

const corruptAt = (text: string): number | undefined => {
  const result = decodeGoBase64(text);
  return 'corruptAt' in result ? result.corruptAt : undefined;
};

describe('decodeGoBase64', () => {
  it('decodeGoBase64 decodes padded standard base64 and skips newlines', () => {
    const decoded = decodeGoBase64('aGVs\nbG8=');
    assert.ok('bytes' in decoded);
    assert.equal(decoded.bytes.toString(), 'hello');
    const empty = decodeGoBase64('');
    assert.ok('bytes' in empty && empty.bytes.length === 0);
  });

  it('decodeGoBase64 reports the offset Go reports as illegal', () => {
    assert.equal(corruptAt('!!!!'), 0);
    assert.equal(corruptAt('aGVsbG8'), 4, 'missing padding: the start of the short quantum');
    assert.equal(corruptAt('aGVsbG8=x'), 8, 'data after the padding');
    assert.equal(corruptAt('a==='), 1, 'padding too early');
    assert.equal(corruptAt('aGVsbG8-'), 7, 'URL alphabet is not standard');
    assert.equal(corruptAt('aGV=bG8='), 4, 'trailing garbage after padding');
    assert.equal(corruptAt('aG=='), undefined);
    assert.equal(corruptAt('aG='), 3, 'one "=" where two are needed');
  });
});
