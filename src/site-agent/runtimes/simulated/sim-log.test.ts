import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../../../common/testing/fake-timers.js';
import { renderSimLogLine, rfc3339Nano, simFirstLineSince, simLineTimeNs, simLinesAt } from './sim-log.js';
import { simLogStream } from './sim-log-stream.js';

const T0 = Date.UTC(2020, 0, 1);

describe('simulated container log', () => {
  it('sim log times lines to the nanosecond at any rate, and counts and finds them consistently', () => {
    const run = { restart: 0, startedAt: T0 };
    const shape = { lines: 2, linesPerSecond: 3 };
    const times = [1, 2, 3, 4, 5, 6].map((seq) => rfc3339Nano(simLineTimeNs(run, shape, seq) ?? -1n));
    assert.deepEqual(times, [
      '2020-01-01T00:00:00Z',
      '2020-01-01T00:00:00Z',
      '2020-01-01T00:00:00.333333333Z',
      '2020-01-01T00:00:00.666666666Z',
      '2020-01-01T00:00:01Z',
      '2020-01-01T00:00:01.333333333Z',
    ]);
    assert.deepEqual([0, 333, 334, 999, 1000, 60_000].map((ms) => simLinesAt(run, shape, T0 + ms)), [2, 2, 3, 4, 5, 182]);
    assert.equal(simLinesAt({ ...run, finishedAt: T0 + 1000 }, shape, T0 + 60_000), 5, 'nothing after the run ended');
    assert.equal(simLinesAt(run, shape, T0 - 1), 0);
    assert.deepEqual([0, 1, 334, 1000, 1001].map((ms) => simFirstLineSince(run, shape, T0 + ms)), [1, 3, 4, 5, 6]);
    assert.equal(simLineTimeNs(run, { lines: 2, linesPerSecond: 0 }, 3), undefined, 'at rate 0 only the first lines exist');
    assert.equal(simFirstLineSince(run, { lines: 2, linesPerSecond: 0 }, T0 + 1), 3);
  });

  it('sim log lines fill the template and take kubelet\'s timestamp prefix', () => {
    const fields = { pod: 'web', namespace: 'shop', container: 'app', restart: 2 };
    assert.equal(renderSimLogLine('{pod} {namespace} {container} {seq} {restart} {time} {other}', fields, 7, 1_500_000_000n, false), 'web shop app 7 2 1970-01-01T00:00:01.5Z {other}\n');
    assert.equal(renderSimLogLine('x', fields, 1, 0n, true), '1970-01-01T00:00:00Z x\n');
  });

  it('sim log follower at rate 0 waits for the run to end, then ends', async () => {
    const timers = fakeTimers(T0);
    let finishedAt: number | undefined = undefined;
    const stream = simLogStream({
      timers,
      run: { restart: 0, startedAt: T0 },
      shape: { lines: 1, linesPerSecond: 0 },
      template: '{seq}',
      fields: { pod: 'p', namespace: 'n', container: 'c', restart: 0 },
      first: 1,
      timestamps: false,
      follow: () => finishedAt,
    });
    let text = '';
    let ended = false;
    stream.on('data', (chunk: Buffer) => (text += String(chunk)));
    stream.on('end', () => (ended = true));
    for (let i = 0; i < 5; i++) {
      timers.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(text, '1\n');
    assert.equal(ended, false);
    assert.equal(timers.pending().length, 1, 'one poll timer');
    finishedAt = T0 + 5000;
    timers.advance(1000);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ended, true);
    assert.equal(timers.pending().length, 0);
  });
});
