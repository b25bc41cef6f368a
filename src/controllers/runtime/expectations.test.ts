import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Expectations } from './expectations.js';

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

  it('expectations raised one creation at a time add up, and each raise restarts the time to live', () => {
    let now = 0;
    const expectations = new Expectations(() => now, 1000);
    expectations.expectCreations('web', 1);
    now = 800;
    expectations.expectCreations('web', 1);
    expectations.creationObserved('web');
    now = 1500;
    assert.equal(expectations.satisfied('web'), false, 'one creation is still pending, raised 700 ms ago');
    expectations.creationObserved('web');
    assert.equal(expectations.satisfied('web'), true);
  });

  it('expectations do not count a creation seen before it was expected', () => {
    const expectations = new Expectations(() => 0);
    expectations.creationObserved('web');
    expectations.expectCreations('web', 1);
    assert.equal(expectations.satisfied('web'), false);
    expectations.expectDeletions('db', ['u1']);
    expectations.creationObserved('db');
    expectations.expectCreations('db', 1);
    expectations.deletionObserved('db', 'u1');
    assert.equal(expectations.satisfied('db'), false, 'a creation seen while only a deletion was pending does not count');
  });

  it('expectations of a forgotten owner are gone', () => {
    const expectations = new Expectations(() => 0);
    expectations.expectCreations('web', 3);
    expectations.forget('web');
    assert.equal(expectations.satisfied('web'), true);
  });
});
