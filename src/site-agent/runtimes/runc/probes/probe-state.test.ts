import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Probe } from '../../../../api/pod-spec-types.js';
import { ContainerProbes, probeTiming, type ProbeKind, type ProbeReport, type ProbeResult } from './probe-state.js';

const ok: ProbeResult = { outcome: 'success' };
const bad: ProbeResult = { outcome: 'failure', output: 'HTTP probe failed with statuscode: 500' };
const http: Probe = { httpGet: { port: 80 } };

/** Runs whatever is due at `now`, answering each probe with `answer`, reported `latency` ms later. */
function step(probes: ContainerProbes, answer: (kind: ProbeKind) => ProbeResult, latency = 5): Array<{ kind: ProbeKind; at: number; report: ProbeReport }> {
  const now = probes.nextDueAt();
  assert.notEqual(now, undefined, 'a probe is due');
  return probes.due(now as number).map(({ kind }) => ({ kind, at: now as number, report: probes.report(kind, (now as number) + latency, answer(kind)) }));
}

describe('container probes', () => {
  it('fills in kubelet\'s defaults', () => {
    assert.deepEqual(probeTiming(http), { initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1000, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(probeTiming({ ...http, initialDelaySeconds: 5, periodSeconds: 2, timeoutSeconds: 3, successThreshold: 2, failureThreshold: 1 }), {
      initialDelayMs: 5000,
      periodMs: 2000,
      timeoutMs: 3000,
      successThreshold: 2,
      failureThreshold: 1,
    });
  });

  it('a container without probes is started and ready at once, and nothing is ever due', () => {
    const probes = new ContainerProbes({ name: 'app' }, 1000);
    assert.equal(probes.started, true);
    assert.equal(probes.ready, true);
    assert.equal(probes.nextDueAt(), undefined);
  });

  it('readiness is false until its first success after the initial delay, and flips with the thresholds', () => {
    const probes = new ContainerProbes({ name: 'app', readinessProbe: { ...http, initialDelaySeconds: 2, periodSeconds: 1, successThreshold: 2 } }, 1000);
    assert.equal(probes.ready, false);
    assert.equal(probes.nextDueAt(), 3000);
    assert.deepEqual(probes.due(2999), []);
    let [first] = step(probes, () => ok);
    assert.deepEqual(first?.report, { changed: false });
    assert.equal(probes.nextDueAt(), 4000);
    [first] = step(probes, () => ok);
    assert.deepEqual(first?.report, { changed: true });
    assert.equal(probes.ready, true);
    const failures = [step(probes, () => bad), step(probes, () => bad), step(probes, () => bad)].map(([run]) => run?.report);
    assert.deepEqual(failures[0], { event: { type: 'Warning', reason: 'Unhealthy', message: 'Readiness probe failed: HTTP probe failed with statuscode: 500' }, changed: false });
    assert.equal(failures[2]?.changed, true);
    assert.equal(failures[2]?.kill, undefined);
    assert.equal(probes.ready, false);
    assert.equal(probes.nextDueAt(), 8000, 'readiness failures never stop probing');
  });

  it('liveness failing failureThreshold times in a row kills the container with kubelet\'s words, and probing stops', () => {
    const probes = new ContainerProbes({ name: 'app', livenessProbe: { ...http, periodSeconds: 5 } }, 0);
    assert.equal(probes.ready, true);
    const answers = [bad, bad, ok, bad, bad];
    for (const answer of answers) assert.equal(step(probes, () => answer)[0]?.report.kill, undefined);
    const [last] = step(probes, () => bad);
    assert.equal(last?.at, 25_000);
    assert.deepEqual(last?.report.kill, { probe: 'liveness', message: 'Container app failed liveness probe' });
    assert.equal(last?.report.event?.message, 'Liveness probe failed: HTTP probe failed with statuscode: 500');
    assert.equal(probes.nextDueAt(), undefined);
  });

  it('liveness and readiness wait for the startup probe, which stops once it succeeded', () => {
    const probes = new ContainerProbes(
      {
        name: 'app',
        startupProbe: { ...http, periodSeconds: 1, failureThreshold: 30 },
        livenessProbe: { ...http, periodSeconds: 10 },
        readinessProbe: { ...http, periodSeconds: 10 },
      },
      0,
    );
    assert.equal(probes.started, false);
    assert.equal(probes.ready, false);
    for (let i = 0; i < 3; i++) assert.deepEqual(step(probes, () => bad).map((run) => run.kind), ['startup']);
    const [started] = step(probes, () => ok);
    assert.equal(started?.at, 3000);
    assert.equal(started?.report.changed, true);
    assert.equal(probes.started, true);
    assert.equal(probes.ready, false, 'readiness has not succeeded yet');
    // Readiness runs as soon as it may; liveness on its own period.
    assert.equal(probes.nextDueAt(), 3005);
    assert.deepEqual(step(probes, () => ok).map((run) => [run.kind, run.at, run.report.changed]), [['readiness', 3005, true]]);
    assert.equal(probes.ready, true);
    assert.deepEqual(step(probes, () => ok).map((run) => [run.kind, run.at]), [['liveness', 10_000]]);
    assert.deepEqual(step(probes, () => ok).map((run) => [run.kind, run.at]), [['readiness', 13_005]]);
  });

  it('probes resumed after an agent restart keep the container started and ready until the probes say otherwise', () => {
    const container = { name: 'app', startupProbe: { ...http, periodSeconds: 1 }, livenessProbe: { ...http, periodSeconds: 10 }, readinessProbe: { ...http, periodSeconds: 5, failureThreshold: 2 } };
    const probes = new ContainerProbes(container, 0, { at: 62_000, started: true, ready: true });
    assert.equal(probes.started, true);
    assert.equal(probes.ready, true);
    assert.equal(probes.nextDueAt(), 62_000, 'readiness runs at once; liveness keeps its rhythm (70 s)');
    assert.deepEqual(step(probes, () => bad).map((r) => [r.kind, r.report.changed]), [['readiness', false]]);
    assert.equal(probes.ready, true, 'one failure of two');
    assert.deepEqual(probes.due(70_000).map((d) => d.kind), ['liveness', 'readiness']);
    const unready = new ContainerProbes(container, 0, { at: 62_000, started: true, ready: false });
    assert.equal(unready.ready, false);
    const starting = new ContainerProbes(container, 0, { at: 62_000, started: false, ready: false });
    assert.equal(starting.started, false);
    assert.deepEqual(starting.due(62_000).map((d) => d.kind), ['startup'], 'a container still starting is probed from its start');
  });

  it('a container with a startup probe and no readiness probe is ready once started', () => {
    const probes = new ContainerProbes({ name: 'app', startupProbe: http }, 0);
    assert.equal(probes.ready, false);
    step(probes, () => ok);
    assert.equal(probes.ready, true);
    assert.equal(probes.nextDueAt(), undefined);
  });

  it('a startup probe failing failureThreshold times kills the container', () => {
    const probes = new ContainerProbes({ name: 'db', startupProbe: { ...http, failureThreshold: 2 }, livenessProbe: http }, 0);
    step(probes, () => bad);
    const [last] = step(probes, () => bad);
    assert.deepEqual(last?.report.kill, { probe: 'startup', message: 'Container db failed startup probe' });
    assert.equal(probes.nextDueAt(), undefined);
  });

  it('an errored probe is reported and thrown away; a warning counts as success', () => {
    const probes = new ContainerProbes({ name: 'app', livenessProbe: { ...http, failureThreshold: 2 }, readinessProbe: http }, 0);
    const errored: ProbeResult = { outcome: 'error', output: 'port web not found' };
    const [live, ready] = step(probes, () => errored);
    assert.deepEqual(live?.report, { event: { type: 'Warning', reason: 'Unhealthy', message: 'Liveness probe errored: port web not found' }, changed: false });
    assert.equal(ready?.report.changed, false);
    assert.equal(probes.ready, false);
    step(probes, (kind) => (kind === 'liveness' ? bad : { outcome: 'warning', output: 'moved' }));
    assert.equal(probes.ready, true);
    const [again] = step(probes, () => errored);
    assert.equal(again?.report.kill, undefined, 'the error did not count as the second failure');
    const [killed] = step(probes, () => bad);
    assert.equal(killed?.report.kill?.probe, 'liveness');
  });

  it('a probe slower than its period runs again as soon as it reports, and never while in flight', () => {
    const probes = new ContainerProbes({ name: 'app', readinessProbe: { ...http, periodSeconds: 1, timeoutSeconds: 5 } }, 0);
    assert.equal(probes.due(0).length, 1);
    assert.equal(probes.nextDueAt(), undefined);
    assert.deepEqual(probes.due(10_000), []);
    probes.report('readiness', 4000, ok);
    assert.equal(probes.nextDueAt(), 4000);
    assert.deepEqual(probes.report('readiness', 4100, ok), { changed: false }, 'a report with nothing in flight is ignored');
  });

  it('readiness follows the result runs and liveness kills exactly at the failureThreshold-th failure in a row', () => {
    const result = fc.constantFrom<ProbeResult>(ok, bad, { outcome: 'error', output: 'x' });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.array(fc.tuple(result, result), { maxLength: 60 }), (successThreshold, failureThreshold, answers) => {
        const probes = new ContainerProbes(
          { name: 'app', livenessProbe: { ...http, failureThreshold: failureThreshold + 1 }, readinessProbe: { ...http, successThreshold, failureThreshold } },
          0,
        );
        let ready = false;
        const runs: Record<ProbeKind, { last: string; run: number }> = { startup: { last: '', run: 0 }, liveness: { last: '', run: 0 }, readiness: { last: '', run: 0 } };
        let killedAt = -1;
        answers.forEach(([live, readiness], i) => {
          if (killedAt >= 0) return;
          const before = probes.nextDueAt() as number;
          const reports = step(probes, (kind) => (kind === 'liveness' ? live : readiness));
          assert.deepEqual(reports.map((r) => r.kind), ['liveness', 'readiness']);
          for (const { kind, report } of reports) {
            if (killedAt >= 0) {
              assert.deepEqual(report, { changed: false }, 'nothing counts after the kill');
              continue;
            }
            const answer = kind === 'liveness' ? live : readiness;
            const track = runs[kind];
            if (answer.outcome !== 'error') {
              track.run = track.last === answer.outcome ? track.run + 1 : 1;
              track.last = answer.outcome;
            }
            if (kind === 'readiness' && answer.outcome !== 'error') {
              if (answer.outcome === 'success' && track.run >= successThreshold) ready = true;
              if (answer.outcome === 'failure' && track.run >= failureThreshold) ready = false;
            }
            const shouldKill = kind === 'liveness' && answer.outcome === 'failure' && track.run === failureThreshold + 1;
            assert.equal(report.kill !== undefined, shouldKill);
            if (shouldKill) killedAt = i;
          }
          assert.equal(probes.ready, ready);
          if (killedAt < 0) assert.equal(probes.nextDueAt(), before + 10_000);
        });
        if (killedAt >= 0) assert.equal(probes.nextDueAt(), undefined);
      }),
    );
  });
});
