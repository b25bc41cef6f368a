import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnsealError } from './unseal-error.js';
import { UnsealRequestMemo } from './unseal-request-memo.js';

const tag = 't'.repeat(80);
const body = (location: string, extra = ''): Buffer => Buffer.from(`{"type":"blindfold","location":"string:///${location}${tag}"${extra}}`);

describe('UnsealRequestMemo', () => {
  it('UnsealRequestMemo gives the same frozen request for the same bytes, from a copy of them', () => {
    const memo = new UnsealRequestMemo();
    const first = body('AAAA');
    const request = memo.parse(first);
    assert.deepEqual(request, { type: 'blindfold', location: `string:///AAAA${tag}`, encoding: 'EncodingNone' });
    assert.ok(Object.isFrozen(request));
    first.fill(0x20); // the caller's buffer is reused: the memo kept its own copy
    assert.equal(memo.parse(body('AAAA')), request, 'the same bytes again: the remembered request');
    assert.equal(memo.size, 1);
  });

  it('UnsealRequestMemo parses bodies that only share the tail, or the same fields otherwise written', () => {
    const memo = new UnsealRequestMemo();
    const a = memo.parse(body('AAAA'));
    const b = memo.parse(body('BBBB'));
    assert.equal(b.location, `string:///BBBB${tag}`, 'same last 64 bytes, other location: parsed, not the remembered one');
    assert.notEqual(a.location, b.location);
    const spaced = memo.parse(Buffer.from(`{ "location": "string:///BBBB${tag}", "type": "blindfold", "encoding_type": "EncodingBase64" }`));
    assert.deepEqual(spaced, { type: 'blindfold', location: `string:///BBBB${tag}`, encoding: 'EncodingBase64' });
  });

  it('UnsealRequestMemo refuses an invalid body every time and keeps nothing of it', () => {
    const memo = new UnsealRequestMemo();
    const invalid = Buffer.from(`{"type":"blindfold","location":"string:///x${tag}","encodingType":"EncodingBase64"}`);
    for (let i = 0; i < 2; i++) assert.throws(() => memo.parse(invalid), (e: unknown) => e instanceof UnsealError && e.code === 'InvalidRequest' && /encodingType/.test(e.message));
    assert.equal(memo.size, 0);
  });

  it('UnsealRequestMemo does not keep bodies over its byte limit, and keeps at most its entries', () => {
    const memo = new UnsealRequestMemo({ maxEntries: 2, maxBodyBytes: 200 });
    assert.equal(memo.parse(body('L'.repeat(300))).location.length, 'string:///'.length + 300 + tag.length);
    assert.equal(memo.size, 0, 'a large body is parsed, not kept');
    // Three bodies whose last bytes differ (the spaces before the brace), so none replaces another.
    for (const spaces of [0, 1, 2]) memo.parse(body('A', ' '.repeat(spaces)));
    assert.equal(memo.size, 2);
    assert.throws(() => new UnsealRequestMemo({ maxEntries: 0 }), /at least one entry/);
  });
});
