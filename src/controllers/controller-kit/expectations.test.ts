import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Expectations } from './expectations.js';
import { readSiteStatus, formatSiteStatus, withSiteStatus } from './site-status.js';

describe('expectations', () => {
  it('expectations hold an owner until its creations and deletions are seen', () => {
    const expectations = new Expectations(() => 0);
    expectations.expectCreations('web', 2);
    expectations.expectDeletions('web', ['u1']);
    assert.equal(expectations.satisfied('web'), false);
    expectations.creationObserved('web');
    expectations.creationObserved('web');
    assert.equal(expectations.satisfied('web'), false, 'the deletion is still pending');
    expectations.deletionObserved('web', 'other');
    assert.equal(expectations.satisfied('web'), false);
    expectations.deletionObserved('web', 'u1');
    assert.equal(expectations.satisfied('web'), true);
    assert.equal(expectations.satisfied('never-asked'), true);
  });

  it('expectations lapse after their time to live', () => {
    let now = 0;
    const expectations = new Expectations(() => now, 1000);
    expectations.expectCreations('web', 1);
    now = 1000;
    assert.equal(expectations.satisfied('web'), false);
    now = 1001;
    assert.equal(expectations.satisfied('web'), true);
  });
});

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
