import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../common/testing/fake-timers.js';
import { createLogger } from '../observability/logger.js';
import type { HeartbeatResponse } from '../site-api/site-api-types.js';
import { failingIntervalMs, heartbeatIntervalMs, heartbeatTimeoutMs, startHeartbeats, type HeartbeatRequestOptions } from './heartbeat-loop.js';

const logger = createLogger({ level: 'silent' });
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A control plane stand-in: the heartbeats numbered in `hang` are accepted and never answered
 * (they end only when the agent gives up on them, as a request on a dead connection does); the
 * others are answered with a 40 s lease.
 */
function standIn(timers: { now(): number }, hang: ReadonlySet<number>) {
  const sent: Array<{ at: number; abortedAt?: number }> = [];
  return {
    sent,
    heartbeat(_sites: readonly string[], options: HeartbeatRequestOptions): Promise<HeartbeatResponse> {
      const beat: { at: number; abortedAt?: number } = { at: timers.now() };
      sent.push(beat);
      if (!hang.has(sent.length)) return Promise.resolve({ leaseSeconds: 40 } as HeartbeatResponse);
      return new Promise((_, reject) =>
        options.signal.addEventListener('abort', () => {
          beat.abortedAt = timers.now();
          reject(options.signal.reason as Error);
        }),
      );
    },
  };
}

describe('heartbeat loop', () => {
  it('a heartbeat the server accepts and never answers is given up after half an interval, and the next beats go out on time', async () => {
    const timers = fakeTimers(0);
    const server = standIn(timers, new Set([2]));
    const loop = startHeartbeats({ client: server, sites: ['s1'], intervalMs: 10_000, timers, logger });
    await loop.first;
    for (let i = 0; i < 4; i++) {
      timers.advance(5_000);
      await settle();
      timers.advance(5_000);
      await settle();
    }
    loop.stop();
    // Beat 2 hung and failed at 15 s; beat 3 was already due at 20 s, the one after it a quarter interval later (failing), then the steady cadence again.
    assert.deepEqual(server.sent.map((b) => b.at), [0, 10_000, 20_000, 20_000 + failingIntervalMs(10_000), 32_500], 'the hung beat delayed none of the others');
    assert.equal(server.sent[1]?.abortedAt, 15_000, 'the hung beat ended at its timeout, half an interval after it started');
  });

  it('the lease covers two missed heartbeats even when one of them hangs (interval a quarter of the lease at most)', () => {
    for (const [interval, lease] of [[10_000, 40_000], [10_000, 20_000], [1_000, 3_000]] as const) {
      const i = heartbeatIntervalMs(interval, lease);
      // The worst gap between two renewals: the beat renewing at its start, two lost beats, the next renewing just before its timeout.
      const worstGap = 3 * i + heartbeatTimeoutMs(i);
      assert.ok(worstGap < lease || i === 1000, `interval ${i} ms, lease ${lease} ms: gap ${worstGap} ms`);
    }
    assert.equal(heartbeatIntervalMs(10_000, 40_000), 10_000, 'the defaults: 10 s beats, 5 s timeout, 40 s lease');
    assert.equal(heartbeatTimeoutMs(10_000), 5_000);
    assert.equal(heartbeatIntervalMs(10_000, 20_000), 5_000);
  });

  it('a shorter lease from the server shortens the interval to a quarter of it', async () => {
    const timers = fakeTimers(0);
    const sent: number[] = [];
    const client = { heartbeat: () => (sent.push(timers.now()), Promise.resolve({ leaseSeconds: 8 } as HeartbeatResponse)) };
    const loop = startHeartbeats({ client, sites: ['s1'], intervalMs: 10_000, timers, logger });
    await loop.first;
    timers.advance(10_000);
    await settle();
    timers.advance(2_000);
    await settle();
    loop.stop();
    assert.deepEqual(sent, [0, 10_000, 12_000]);
  });

  it('tells onRecovered once when heartbeats succeed again after failing, never while they keep succeeding', async () => {
    const timers = fakeTimers(0);
    const server = standIn(timers, new Set([2, 3]));
    let recovered = 0;
    const loop = startHeartbeats({ client: server, sites: ['s1'], intervalMs: 10_000, timers, logger, onRecovered: () => recovered++ });
    await loop.first;
    const at: number[] = [];
    for (let i = 0; i < 4; i++) {
      timers.advance(10_000);
      await settle();
      at.push(recovered);
    }
    loop.stop();
    assert.deepEqual(at, [0, 0, 1, 1], 'the fourth beat (at 22.5 s: a quarter interval after a failed one) is the first to succeed after two failed ones');
  });
});
