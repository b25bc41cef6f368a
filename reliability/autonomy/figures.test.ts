import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { missedGoals, type FaultRow } from './fault-row.js';
import { compareCensus, readyAfter, type Census } from './observations.js';

const census = (uids: Record<string, number>, pids: Record<string, number>): Census => ({
  uids: new Map(Object.keys(uids).map((uid) => [uid, uid])),
  restarts: new Map(Object.entries(uids)),
  pids: new Map(Object.entries(pids)),
});

const row = (over: Partial<FaultRow>): FaultRow => ({
  name: 'f',
  outage: 'o',
  startedAt: 0,
  restoredAt: 10_000,
  stopsDataPlane: false,
  calls: { succeeded: 100, failed: [], silences: [] },
  readyAfter: 0,
  observedSeconds: 12,
  notReadySeconds: 0,
  change: { restarts: 0, newPids: 0, moved: 0 },
  notes: [],
  ...over,
});

describe('autonomy figures', () => {
  it('Ready again: the first all-Ready sample after the last one that was not, from the restore; unanswered samples are neither', () => {
    const samples = [
      { t: 900, allReady: false },
      { t: 1000, allReady: undefined },
      { t: 1250, allReady: false },
      { t: 1500, allReady: false },
      { t: 1750, allReady: true },
      { t: 2000, allReady: undefined },
      { t: 2250, allReady: true },
    ];
    assert.equal(readyAfter(samples, 1000, 3000), 0.75);
    assert.equal(readyAfter(samples.map((s) => ({ ...s, allReady: s.allReady === undefined ? undefined : true })), 1000, 3000), 0);
    assert.equal(readyAfter(samples, 1000, 1600), undefined, 'not Ready when the watch ends');
    assert.equal(readyAfter([], 1000, 3000), undefined, 'nothing answered');
  });

  it('pods restarted and moved: restart counts of pods that stayed, containers whose pid changed, came or went, uids that changed', () => {
    const before = census({ a: 0, b: 1 }, { x: 10, y: 11, z: 12 });
    assert.deepEqual(compareCensus(before, census({ a: 0, b: 1 }, { x: 10, y: 11, z: 12 })), { restarts: 0, newPids: 0, moved: 0 });
    assert.deepEqual(compareCensus(before, census({ a: 2, c: 0 }, { x: 10, y: 99, w: 13 })), { restarts: 2, newPids: 3, moved: 1 });
  });

  it('goals: any failed call, a slow or missing Ready, a restart or a move is missed; a fault that stops the data plane owes no failure later than 5 s after the restart', () => {
    assert.deepEqual(missedGoals(row({})), []);
    const failed = [{ t: 12_000, ms: 2, target: 'web-ip', error: 'ECONNREFUSED' }];
    assert.equal(missedGoals(row({ calls: { succeeded: 99, failed, silences: [] } })).length, 1);
    assert.deepEqual(missedGoals(row({ stopsDataPlane: true, calls: { succeeded: 99, failed, silences: [] } })), []);
    assert.equal(missedGoals(row({ stopsDataPlane: true, calls: { succeeded: 99, failed: [{ ...failed[0]!, t: 15_000 }], silences: [] } })).length, 1);
    assert.equal(missedGoals(row({ readyAfter: 5.5 })).length, 1);
    assert.equal(missedGoals(row({ readyAfter: undefined })).length, 1);
    assert.equal(missedGoals(row({ change: { restarts: 0, newPids: 1, moved: 0 } })).length, 1);
    assert.equal(missedGoals(row({ change: { restarts: 0, newPids: 0, moved: 1 } })).length, 1);
    assert.equal(missedGoals(row({ calls: { succeeded: 99, failed: [], silences: [{ from: 1, to: 5000 }] } })).length, 1);
  });
});
