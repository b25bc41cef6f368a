import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyObject, WriteLedger } from './write-ledger.js';

/** A configmap `cm` written four times: w1 acknowledged at 10, w2 acknowledged at 12, w3 no answer, w4 refused. */
function history(): ReturnType<WriteLedger['acknowledgedObjects']>[number]['attempts'] {
  const ledger = new WriteLedger();
  ledger.begin('configmap', 'cm', 'w1').acknowledged(10);
  ledger.begin('configmap', 'cm', 'w2').acknowledged(12);
  ledger.begin('configmap', 'cm', 'w3').unknown();
  ledger.begin('configmap', 'cm', 'w4').refused();
  const [object] = ledger.acknowledgedObjects();
  assert.ok(object !== undefined);
  return object.attempts;
}

describe('crash write ledger', () => {
  it('an acknowledged write is found when the object holds it or a later write that may have committed', () => {
    assert.deepEqual(verifyObject('cm', history(), { content: 'w2', revision: 12 }), { acknowledged: 2, found: 2, lost: [] });
    assert.deepEqual(verifyObject('cm', history(), { content: 'w3', revision: 13 }), { acknowledged: 2, found: 2, lost: [] });
  });

  it('is lost when the object went back to older content, holds a refused write, went back in revision, or is gone', () => {
    const older = verifyObject('cm', history(), { content: 'w1', revision: 13 });
    assert.equal(older.found, 1);
    assert.match(older.lost.join(), /write #2 \(w2 at 12\) is gone: the object holds w1/);
    assert.equal(verifyObject('cm', history(), { content: 'w4', revision: 14 }).found, 0);
    assert.match(verifyObject('cm', history(), { content: 'w2', revision: 11 }).lost.join(), /is gone: the object is at revision 11/);
    assert.deepEqual(verifyObject('cm', history(), undefined).lost.length, 2);
  });

  it('claims only objects whose create was acknowledged and that have no write in flight; counts outcomes', () => {
    const ledger = new WriteLedger();
    ledger.begin('policer', 'a', 'w1').acknowledged(undefined);
    ledger.begin('policer', 'b', 'w2').unknown();
    const inFlight = ledger.begin('policer', 'c', 'w3');
    assert.deepEqual(ledger.claim('policer', () => 0), { name: 'a', last: 'w1' });
    assert.equal(ledger.claim('policer', () => 0), undefined, 'a is busy, b may not exist, c is in flight');
    inFlight.acknowledged(undefined);
    assert.deepEqual(ledger.claim('policer', () => 0), { name: 'c', last: 'w3' });
    assert.deepEqual(ledger.tally(), { acknowledged: 2, refused: 0, unknown: 1 });
    assert.equal(ledger.count('policer'), 3);
  });
});
