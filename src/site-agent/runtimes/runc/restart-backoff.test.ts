import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { backOffKey, crashLoopMessage, goDuration, RestartBackOff, shouldRestart } from './restart-backoff.js';

const MIN = 60_000;

/** Runs a container that lives `runsMs[i]` each time and is restarted as soon as allowed; returns the waits before each restart. */
function crashLoop(backOff: RestartBackOff, runsMs: readonly number[]): number[] {
  const key = backOffKey('uid-1', 'app');
  const waits: number[] = [];
  let startedAt = 1_000_000;
  for (const run of runsMs) {
    const finishedAt = startedAt + run;
    let now = finishedAt;
    let decision = backOff.decide(key, finishedAt, now);
    if (!decision.start) {
      assert.ok(decision.at > now);
      now = decision.at;
      decision = backOff.decide(key, finishedAt, now);
      assert.equal(decision.start, true);
    }
    waits.push(now - finishedAt);
    startedAt = now;
  }
  return waits;
}

describe('crash-loop back-off', () => {
  it('restarts the first failure at once, then waits 10 s doubling to 5 min', () => {
    const waits = crashLoop(new RestartBackOff(), Array.from({ length: 9 }, () => 1000));
    assert.deepEqual(waits, [0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it('starts again from the beginning after a container ran more than 10 minutes', () => {
    const waits = crashLoop(new RestartBackOff(), [1000, 1000, 1000, 10 * MIN + 1, 1000, 1000]);
    assert.deepEqual(waits, [0, 10_000, 20_000, 0, 10_000, 20_000]);
    // Exactly 10 minutes is not more than twice the maximum: the back-off goes on.
    assert.deepEqual(crashLoop(new RestartBackOff(), [1000, 1000, 10 * MIN]), [0, 10_000, 20_000]);
  });

  it('keeps one back-off per pod and container, and forgets a pod', () => {
    const backOff = new RestartBackOff();
    assert.deepEqual(backOff.decide(backOffKey('a', 'c'), 0, 0), { start: true });
    assert.deepEqual(backOff.decide(backOffKey('a', 'c'), 100, 100), { start: false, at: 10_100, delayMs: 10_000 });
    assert.deepEqual(backOff.decide(backOffKey('a', 'd'), 100, 100), { start: true });
    assert.deepEqual(backOff.decide(backOffKey('b', 'c'), 100, 100), { start: true });
    backOff.forgetPod('a');
    assert.equal(backOff.size, 1);
    assert.deepEqual(backOff.decide(backOffKey('a', 'c'), 200, 200), { start: true });
    backOff.gc(200 + 10 * MIN + 1);
    assert.equal(backOff.size, 0);
  });

  it('never waits longer than 5 min, and waits only while the container ran less than 10 min since its last restart', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 * MIN }), { minLength: 1, maxLength: 40 }), (runs) => {
        const waits = crashLoop(new RestartBackOff(), runs);
        let expected = 0;
        let armed = false;
        runs.forEach((run, i) => {
          if (!armed || run > 10 * MIN) {
            expected = 0;
            armed = true;
          } else expected = expected === 0 ? 10_000 : Math.min(expected * 2, 300_000);
          assert.equal(waits[i], expected, `restart ${i} after runs ${runs.slice(0, i + 1).join(',')}`);
          assert.ok(waits[i] <= 300_000);
        });
      }),
    );
  });

  it('words the waiting message as kubelet does, with Go durations', () => {
    const pod = { name: 'web-1', namespace: 'shop', uid: '0b6f' };
    assert.equal(crashLoopMessage(20_000, 'app', pod), 'back-off 20s restarting failed container=app pod=web-1_shop(0b6f)');
    assert.deepEqual(
      [10_000, 80_000, 160_000, 300_000, 1500, 250, 0, 3_723_000].map(goDuration),
      ['10s', '1m20s', '2m40s', '5m0s', '1.5s', '250ms', '0s', '1h2m3s'],
    );
  });

  it('restarts by policy as ShouldContainerBeRestarted does', () => {
    const table: Array<[string | undefined, number, boolean]> = [
      ['Always', 0, true],
      ['Always', 1, true],
      [undefined, 0, true],
      ['OnFailure', 0, false],
      ['OnFailure', 137, true],
      ['Never', 0, false],
      ['Never', 1, false],
    ];
    for (const [policy, code, restart] of table) assert.equal(shouldRestart(policy, code), restart, `${policy} ${code}`);
  });
});
