import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSiteStatus, formatSiteStatus, withSiteStatus } from './site-status.js';

describe('site status annotation', () => {
  it('site status annotation is written in site order and only when it changes', () => {
    const text = formatSiteStatus(new Map([['b', { n: 1 }], ['a', { n: 2 }]]));
    assert.equal(text, '{"a":{"n":2},"b":{"n":1}}');
    const object = { apiVersion: 'v1', kind: 'Job', metadata: { name: 'j' } };
    const written = withSiteStatus(object, text);
    assert.ok(written);
    assert.deepEqual(readSiteStatus(written), { a: { n: 2 }, b: { n: 1 } });
    assert.equal(withSiteStatus(written, text), undefined);
    assert.deepEqual(readSiteStatus({ ...object, metadata: { annotations: { 'svc.io/site-status': 'not json' } } }), {});
  });
});
