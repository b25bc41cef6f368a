import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Readable } from 'node:stream';
import { createLogger } from '../../../observability/logger.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { nodeDirectoryFor } from '../../node-directory.js';
import { siteSpecsFor } from '../../site-specs.js';
import { fakeTimers, type FakeTimers } from '../../../common/testing/fake-timers.js';
import { SiteStreamError, type PodStreamTarget, type SiteLogOptions } from '../../../site-api/pod-streams.js';
import { RUN_SECONDS_ANNOTATION } from './sim-options.js';
import { SimulatedRuntime } from './simulated-runtime.js';

const cluster = { tenant: 'acme', namespace: 'shop', name: 'vk' };
const sites = siteSpecsFor({ name: 'edge', type: 'CUSTOMER_EDGE', labels: {}, nodes: 1, cpu: '4', memory: '8Gi' });
const NODE = 'edge-node-0';
const TEMPLATE = '{namespace}/{pod}/{container} #{seq} r{restart} at {time}';

function pod(name: string, annotations: Record<string, string> = {}, uid = `uid-${name}`): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop', uid, annotations },
    spec: { nodeName: NODE, initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'app', image: 'nginx' }] },
  };
}

function setup(): { runtime: SimulatedRuntime; timers: FakeTimers } {
  const timers = fakeTimers(Date.UTC(2020, 0, 1));
  const runtime = new SimulatedRuntime({
    sink: { status: () => undefined, terminated: () => undefined },
    timers,
    nodes: nodeDirectoryFor('edge', sites),
    logger: createLogger({ level: 'silent' }),
    sim: { startMs: 1000, stopMs: 500, logLines: 3, logLinesPerSecond: 2, logTemplate: TEMPLATE },
    random: () => 0.5,
  });
  return { runtime, timers };
}

const target = (name: string, container = 'app', uid = `uid-${name}`): PodStreamTarget => ({ cluster, name, uid, site: 'edge', container });
const plain: SiteLogOptions = { follow: false, previous: false, timestamps: false };

async function text(stream: Readable): Promise<string> {
  let all = '';
  for await (const chunk of stream) all += String(chunk);
  return all;
}

async function logs(runtime: SimulatedRuntime, options: Partial<SiteLogOptions> = {}, name = 'web', container = 'app'): Promise<string[]> {
  const all = await text(await runtime.streams.logs(target(name, container), { ...plain, ...options }));
  return all === '' ? [] : all.replace(/\n$/, '').split('\n');
}

/** The line `seq` of run `restart` of web/app, written at `time`. */
const line = (seq: number, time: string, restart = 0): string => `shop/web/app #${seq} r${restart} at 2020-01-01T00:00:${time}Z`;

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
async function advance(timers: FakeTimers, ms: number, step = 100): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    timers.advance(step);
    await flush();
  }
}

async function refusal(promise: Promise<unknown>): Promise<[number, string]> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof SiteStreamError, String(error));
  return [error.code, error.message];
}

/** A running pod `web` (containers started at 00:00:01) at 00:00:03: 3 start lines at 01, then 2 a second. */
function running(): { runtime: SimulatedRuntime; timers: FakeTimers } {
  const { runtime, timers } = setup();
  runtime.apply(cluster, pod('web'));
  timers.advance(3000);
  return { runtime, timers };
}

describe('SimPodStreams (simulated runtime)', () => {
  it('simulated logs hold the start lines, then the configured rate up to now, the same at every request', async () => {
    const { runtime, timers } = running();
    const expected = [line(1, '01'), line(2, '01'), line(3, '01'), line(4, '01.5'), line(5, '02'), line(6, '02.5'), line(7, '03')];
    assert.deepEqual(await logs(runtime), expected);
    timers.advance(1000);
    assert.deepEqual((await logs(runtime)).slice(0, 7), expected, 'the lines already written do not change');
    assert.equal((await logs(runtime)).length, 9);
  });

  it('simulated logs honour tailLines, then sinceSeconds / sinceTime, timestamps and limitBytes as kubelet does', async () => {
    const { runtime } = running();
    assert.deepEqual(await logs(runtime, { tailLines: 2 }), [line(6, '02.5'), line(7, '03')]);
    assert.deepEqual(await logs(runtime, { tailLines: 0 }), []);
    assert.deepEqual(await logs(runtime, { sinceSeconds: 1 }), [line(5, '02'), line(6, '02.5'), line(7, '03')]);
    assert.deepEqual(await logs(runtime, { sinceTime: '2020-01-01T00:00:02.2Z' }), [line(6, '02.5'), line(7, '03')]);
    assert.deepEqual(await logs(runtime, { sinceTime: '2019-12-31T00:00:00Z', tailLines: 1 }), [line(7, '03')]);
    assert.deepEqual(await logs(runtime, { tailLines: 1, sinceSeconds: 10 }), [line(7, '03')], 'tail picks first, since filters what is left');
    assert.deepEqual(await logs(runtime, { tailLines: 3, timestamps: true }), [
      `2020-01-01T00:00:02Z ${line(5, '02')}`,
      `2020-01-01T00:00:02.5Z ${line(6, '02.5')}`,
      `2020-01-01T00:00:03Z ${line(7, '03')}`,
    ]);
    const whole = (await logs(runtime)).join('\n') + '\n';
    const cut = await text(await runtime.streams.logs(target('web'), { ...plain, limitBytes: 50 }));
    assert.equal(cut, whole.slice(0, 50), 'limitBytes cuts mid-line');
    assert.equal(await text(await runtime.streams.logs(target('web'), { ...plain, limitBytes: 10_000 })), whole);
  });

  it('simulated logs follow at the rate and end when the container exits', async () => {
    const { runtime, timers } = setup();
    runtime.apply(cluster, pod('web', { [RUN_SECONDS_ANNOTATION]: '3' }));
    timers.advance(2000);
    const stream = await runtime.streams.logs(target('web'), { ...plain, follow: true, tailLines: 1 });
    const seen: string[] = [];
    let ended = false;
    stream.on('data', (chunk: Buffer) => seen.push(...String(chunk).split('\n').filter((l) => l !== '')));
    stream.on('end', () => (ended = true));
    await flush();
    assert.deepEqual(seen, [line(5, '02')]);
    await advance(timers, 500);
    assert.deepEqual(seen, [line(5, '02'), line(6, '02.5')]);
    await advance(timers, 2000);
    assert.deepEqual(seen.slice(2), [line(7, '03'), line(8, '03.5'), line(9, '04')], 'the run ended at 00:00:04 (3 s after its start)');
    assert.equal(ended, true);
  });

  it('simulated log follower buffers at most one line and runs no timer while its reader does not read', async () => {
    const { runtime, timers } = running();
    const stream = await runtime.streams.logs(target('web'), { ...plain, follow: true, tailLines: 0 });
    stream.pause();
    stream.read(0);
    await advance(timers, 60_000, 1000);
    assert.ok(stream.readableLength <= Buffer.byteLength(line(8, '03.5')) + 1, `buffered ${stream.readableLength} bytes`);
    assert.deepEqual(timers.pending(), [], 'nothing scheduled for a reader that does not read');
    let read = '';
    for await (const chunk of stream) {
      read += String(chunk);
      if (read.split('\n').length > 3) break;
    }
    assert.deepEqual(read.split('\n').slice(0, 3), [line(8, '03.5'), line(9, '04'), line(10, '04.5')], 'lines come in order, each with its own time, when reading resumes');
  });

  it('simulated logs of a container that is not running are refused with kubelet\'s texts', async () => {
    const { runtime, timers } = setup();
    runtime.apply(cluster, pod('web'));
    assert.deepEqual(await refusal(runtime.streams.logs(target('web'), plain)), [400, 'container "app" in pod "web" is waiting to start: PodInitializing']);
    assert.deepEqual(await refusal(runtime.streams.logs(target('web', 'init'), plain)), [400, 'container "init" in pod "web" is waiting to start: PodInitializing']);
    assert.deepEqual(await refusal(runtime.streams.logs(target('nope'), plain)), [404, 'pod "nope" does not exist']);
    assert.deepEqual(await refusal(runtime.streams.logs(target('web', 'app', 'other-uid'), plain)), [404, 'pod "web" does not exist'], 'another incarnation');
    assert.deepEqual(await refusal(runtime.streams.logs(target('web', 'side'), plain)), [404, 'container "side" not found in pod "web"']);
    timers.advance(1000);
    assert.deepEqual(await logs(runtime, {}, 'web', 'init'), [1, 2, 3].map((seq) => `shop/web/init #${seq} r0 at 2020-01-01T00:00:01Z`), 'the init container ran once, as the pod started');
    assert.deepEqual(await refusal(runtime.streams.logs(target('web'), { ...plain, previous: true })), [400, 'previous terminated container "app" in pod "web" not found']);
  });

  it('simulated logs --previous serve the run before a restart; the current run starts again at line 1', async () => {
    const { runtime, timers } = setup();
    runtime.apply(cluster, pod('web', { [RUN_SECONDS_ANNOTATION]: '1' }));
    timers.advance(2000); // ran 00:00:01 → 00:00:02, exited
    assert.deepEqual(await logs(runtime), [line(1, '01'), line(2, '01'), line(3, '01'), line(4, '01.5'), line(5, '02')], 'the terminated run');
    timers.advance(5000); // CrashLoopBackOff: kubelet serves the last run
    assert.equal((await logs(runtime)).length, 5);
    assert.deepEqual(await logs(runtime, { previous: true }), await logs(runtime));
    timers.advance(5000); // restarted at 00:00:12 after 10 s of back-off
    assert.deepEqual(await logs(runtime, { previous: true, tailLines: 1 }), [line(5, '02')]);
    assert.deepEqual(await logs(runtime, { tailLines: 1 }), [line(3, '12', 1)]);
  });

  it('simulated log follower ends when its pod is deleted and stopped', async () => {
    const { runtime, timers } = running();
    const stream = await runtime.streams.logs(target('web'), { ...plain, follow: true, tailLines: 0 });
    let ended = false;
    const seen: string[] = [];
    stream.on('data', (chunk: Buffer) => seen.push(String(chunk)));
    stream.on('end', () => (ended = true));
    runtime.apply(cluster, { ...pod('web'), metadata: { ...pod('web').metadata, deletionTimestamp: '2020-01-01T00:00:03Z', deletionGracePeriodSeconds: 30 } });
    await advance(timers, 400);
    assert.equal(ended, false, 'a terminating container still writes');
    await advance(timers, 1500);
    assert.equal(ended, true);
    assert.equal(seen.join(''), `${line(8, '03.5')}\n`, 'its lines up to the stop at 00:00:03.5');
  });

  it('simulated sites refuse exec, attach and port-forward, after kubelet\'s checks', async () => {
    const { runtime, timers } = setup();
    runtime.apply(cluster, pod('web'));
    const io = { signal: new AbortController().signal };
    const options = { stdin: false, stdout: true, stderr: true, tty: false };
    assert.deepEqual(await refusal(runtime.streams.exec(target('web'), { ...options, command: ['date'] }, io)), [500, 'container not found ("app")']);
    assert.deepEqual(await refusal(runtime.streams.exec(target('gone'), { ...options, command: ['date'] }, io)), [500, 'pod not found ("gone_shop")']);
    timers.advance(1000);
    const refused = (what: string): [number, string] => [400, `${what} is not available on simulated site "edge": its pods are simulated; run the site with --runtime runc`];
    assert.deepEqual(await refusal(runtime.streams.exec(target('web'), { ...options, command: ['date'] }, io)), refused('exec'));
    assert.deepEqual(await refusal(runtime.streams.attach(target('web'), options, io)), refused('attach'));
    assert.deepEqual(await refusal(runtime.streams.portForward({ ...target('web'), container: '' }, 80)), refused('port-forward'));
  });
});
