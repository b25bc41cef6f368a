import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, type Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { SiteStreamError, type PodStreams, type PodStreamTarget, type SiteTerminalSize } from '../../src/site-api/pod-streams.js';
import { podContainerId, runcStateRoot } from '../../src/site-agent/runtimes/runc/index.js';
import { busyboxImageSpec, writeOciLayout } from '../../src/testing/oci-image-builder.js';
import { toolPath } from '../../src/testing/tools.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

const SITE = 'ce-s';
const EDGEPLANE = fileURLToPath(new URL('../../../bin/edgeplane.js', import.meta.url));
/** Prints its wall-clock time every 20 ms (stdout; every 5th line to stderr) and serves HTTP on 127.0.0.1:8080 only. */
const APP = "let n=0;setInterval(()=>{const t=performance.timeOrigin+performance.now();(n++%5===4?process.stderr:process.stdout).write((n%5===0?'e ':'t ')+t.toFixed(3)+'\\n')},20);require('http').createServer((q,s)=>s.end('hello from the pod')).listen(8080,'127.0.0.1')";

interface Pod extends KubeObject {
  status?: { phase?: string; containerStatuses?: Array<{ name: string; restartCount: number; state: Record<string, unknown> }> };
}

function deployment(name: string, command: readonly string[], image = 'host'): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: "system/${SITE}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: c, image: ${image}, command: ${JSON.stringify(command)}}
`;
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** An exec through the runtime with buffers for its streams. */
async function exec(streams: PodStreams, target: PodStreamTarget, command: string[], o: { stdin?: Buffer; signal?: AbortSignal } = {}): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const stdin = o.stdin === undefined ? undefined : Readable.from([o.stdin]);
  const code = await streams.exec(target, { command, stdin: stdin !== undefined, stdout: true, stderr: true, tty: false }, { ...(stdin === undefined ? {} : { stdin }), stdout, stderr, signal: o.signal ?? new AbortController().signal });
  stdout.end();
  stderr.end();
  return { code, stdout: await out, stderr: String(await err) };
}

/** A tar of one file `name` holding `bytes`, made by the host's tar. */
function tarOf(name: string, bytes: Buffer): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'streams-tar-'));
  writeFileSync(join(dir, name), bytes);
  const tar = execFileSync('tar', ['cf', '-', '-C', dir, name], { maxBuffer: 64 << 20 });
  rmSync(dir, { recursive: true, force: true });
  return tar;
}

function untarOne(tar: Buffer, name: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'streams-untar-'));
  execFileSync('tar', ['xf', '-', '-C', dir], { input: tar });
  const bytes = readFileSync(join(dir, name));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

describe('pod streams of a runc site (logs, exec, cp, attach, port-forward)', () => {
  let env: RuncSiteEnv;
  let streams: PodStreams;
  const targets = new Map<string, PodStreamTarget>();

  /** The one pod of Deployment `app` once its container runs, as a stream target. */
  const running = async (app: string, restarts = 0): Promise<PodStreamTarget> =>
    waitFor(`${app} running`, async () => {
      const pods = (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items ?? [];
      const pod = pods.find((p) => p.status?.containerStatuses?.some((c) => c.name === 'c' && c.state['running'] !== undefined && c.restartCount >= restarts));
      if (pod === undefined) return undefined;
      const key = [...env.runtime(SITE).keys()].find((k) => k.endsWith(`/${pod.metadata.name}`));
      if (key === undefined) return undefined;
      const [tenant, namespace, name] = key.split('/') as [string, string, string];
      const target = { cluster: { tenant, namespace, name }, name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '', site: SITE, container: 'c' };
      targets.set(app, target);
      return target;
    }, { timeoutMs: 60_000 });

  before(async () => {
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }]);
    streams = env.runtime(SITE).streams as PodStreams;
    assert.ok(streams !== undefined, 'the runc runtime serves streams');
    const layout = join(env.dir, 'busybox-layout');
    const spec = busyboxImageSpec();
    writeOciLayout(layout, { ...spec, layers: [...spec.layers, ['tar', 'tty', 'stty', 'pwd', 'true', 'readlink'].map((a) => ({ type: 'symlink' as const, path: `bin/${a}`, target: 'busybox' }))] });
    execFileSync(process.execPath, [EDGEPLANE, 'image', 'import', layout, '--name', 'busybox:streams', '--home', env.home(SITE)]);
    await env.ok(['apply', '-f', '-'], deployment('app', ['node', '-e', APP]) + '---\n' + deployment('box', ['sleep', '3600'], 'busybox:streams') + '---\n' + deployment('crash', ['sh', '-c', 'echo "instance $(cat /proc/sys/kernel/random/uuid)"; sleep 1; exit 3']));
  });
  after(async () => {
    if (env !== undefined) {
      await env.ok(['delete', 'deployment', 'app', 'box', 'crash']).catch(() => '');
      await waitFor('pods gone', () => Promise.resolve(env.runtime(SITE).size === 0 ? true : undefined), { timeoutMs: 30_000 }).catch(() => undefined);
      const left = podLeftovers(env, SITE);
      await env.close();
      assert.deepEqual(left, []);
      const helpers = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('netns-broker-helper') && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(env.dir);
        } catch {
          return false;
        }
      });
      assert.deepEqual(helpers, []);
      assert.doesNotMatch(execFileSync(toolPath('ip'), ['netns', 'list'], { encoding: 'utf8' }), new RegExp(env.netns(SITE)));
    }
  });

  it('follows a log while the container writes: each line within milliseconds (write → read p50/p99)', async () => {
    const target = await running('app');
    const log = await streams.logs(target, { follow: true, previous: false, timestamps: false, tailLines: 0 });
    const latencies: number[] = [];
    let rest = '';
    for await (const chunk of log) {
      const now = performance.timeOrigin + performance.now();
      const lines = (rest + String(chunk)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) latencies.push(now - Number(line.slice(2)));
      if (latencies.length >= 200) break;
    }
    log.destroy();
    console.log(`log write → follow read over ${latencies.length} lines: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`);
    assert.ok(percentile(latencies, 99) < 100, `p99 ${percentile(latencies, 99)} ms`);
  });

  it('tail, since, timestamps and limitBytes', async () => {
    const target = targets.get('app') ?? (await running('app'));
    const base = { follow: false, previous: false, timestamps: false };
    const tail = String(await collect(await streams.logs(target, { ...base, tailLines: 3 })));
    assert.equal(tail.split('\n').filter((l) => l !== '').length, 3);
    assert.equal((await collect(await streams.logs(target, { ...base, limitBytes: 10 }))).length, 10);
    const since = Date.now() - 1000;
    const stamped = String(await collect(await streams.logs(target, { ...base, timestamps: true, sinceSeconds: 1 }))).split('\n').filter((l) => l !== '');
    assert.ok(stamped.length > 10 && stamped.length < 100, `${stamped.length} lines in the last second`);
    for (const line of stamped) {
      assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z [te] \d/);
      assert.ok(Date.parse(line.split(' ')[0] as string) >= since - 50, line);
    }
  });

  it('--previous after a crash; kubelet\'s words without one; a followed log ends when its container exits', async () => {
    const crash = await running('crash', 1);
    const previous = String(await collect(await streams.logs(crash, { follow: false, previous: true, timestamps: false })));
    assert.match(previous, /^instance [0-9a-f-]{36}\n$/);
    const app = targets.get('app') ?? (await running('app'));
    await assert.rejects(streams.logs(app, { follow: false, previous: true, timestamps: false }), (e: unknown) => e instanceof SiteStreamError && e.code === 400 && e.message === `previous terminated container "c" in pod "${app.name}" not found`);
    const current = await running('crash', 2).catch(() => crash);
    const started = Date.now();
    const followed = String(await collect(await streams.logs(current, { follow: true, previous: false, timestamps: false })));
    assert.match(followed, /instance/);
    assert.ok(Date.now() - started < 15_000, 'the follow ended with the container');
    await assert.rejects(streams.logs({ ...app, uid: 'another-uid' }, { follow: false, previous: false, timestamps: false }), (e: unknown) => e instanceof SiteStreamError && e.code === 404);
  });

  it('exec: exit codes, streams apart, stdin to EOF, the container\'s env/user/cwd, not-found commands, abort kills the process', async () => {
    const box = await running('box');
    assert.equal((await exec(streams, box, ['sh', '-c', 'exit 3'])).code, 3);
    const split = await exec(streams, box, ['sh', '-c', 'echo out; echo err >&2']);
    assert.deepEqual([split.code, String(split.stdout), split.stderr], [0, 'out\n', 'err\n']);
    const cat = await exec(streams, box, ['cat'], { stdin: Buffer.from('through stdin') });
    assert.equal(String(cat.stdout), 'through stdin');
    const who = await exec(streams, box, ['sh', '-c', 'echo $GREETING; pwd; id -u']);
    assert.equal(String(who.stdout), 'hello\n/tmp\n65534\n');
    const missing = await exec(streams, box, ['no-such-command']);
    assert.equal(missing.code, 127);
    assert.match(missing.stderr, /executable file not found/);
    const abort = new AbortController();
    const sleeping = exec(streams, box, ['sleep', '4321'], { signal: abort.signal });
    const sleeper = (): string[] => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sleep\u00004321\u0000';
      } catch {
        return false;
      }
    });
    await waitFor('the exec\'d sleep', () => Promise.resolve(sleeper().length > 0 ? true : undefined));
    abort.abort();
    await sleeping;
    await waitFor('the exec\'d sleep killed', () => Promise.resolve(sleeper().length === 0 ? true : undefined), { timeoutMs: 5000 });
    await assert.rejects(exec(streams, { ...box, container: 'nope' }, ['true']), (e: unknown) => e instanceof SiteStreamError && e.message === 'container not found ("nope")');
    await assert.rejects(exec(streams, { ...box, container: 'edgeplane-sidecar' }, ['true']), (e: unknown) => e instanceof SiteStreamError && e.code === 403);
    await assert.rejects(exec(streams, { ...box, uid: 'x' }, ['true']), (e: unknown) => e instanceof SiteStreamError && /pod not found/.test(e.message));
    const sidecarLog = await streams.logs({ ...box, container: 'edgeplane-sidecar' }, { follow: false, previous: false, timestamps: false });
    await collect(sidecarLog);
  });

  it('exec with a terminal: the shell has a tty and follows a resize', async () => {
    const box = targets.get('app') ?? (await running('app'));
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let seen = '';
    stdout.on('data', (chunk) => (seen += String(chunk)));
    const sizes: SiteTerminalSize[] = [];
    let wake: (() => void) | undefined;
    const resize: AsyncIterable<SiteTerminalSize> = {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (sizes.length > 0) yield sizes.shift() as SiteTerminalSize;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    };
    const done = streams.exec(box, { command: ['/bin/sh'], stdin: true, stdout: true, stderr: false, tty: true }, { stdin, stdout, resize, signal: new AbortController().signal });
    // Type once the shell shows its prompt, as a user does: runc sets the console's first size just after the command starts.
    await waitFor('a prompt', () => Promise.resolve(/[#$] $/.test(seen) ? true : undefined), { describe: () => seen });
    stdin.write('tty; stty size\n');
    await waitFor('tty and size', () => Promise.resolve(/\/dev\/pts\/\d+\s+24 80/.test(seen) ? true : undefined), { describe: () => seen });
    sizes.push({ width: 132, height: 43 });
    wake?.();
    await new Promise((r) => setTimeout(r, 100));
    stdin.write('stty size\n');
    await waitFor('the new size', () => Promise.resolve(/43 132/.test(seen) ? true : undefined), { describe: () => seen });
    stdin.write('exit 7\n');
    assert.equal(await done, 7);
  });

  for (const app of ['box', 'app']) {
    it(`cp: tar in and out of ${app === 'box' ? 'the busybox image' : 'a host-image container'} keeps every byte`, async () => {
      const target = targets.get(app) ?? (await running(app));
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      // The busybox image runs as nobody in /tmp (its working directory), which it may write.
      const dir = app === 'box' ? '.' : '/tmp';
      const put = await exec(streams, target, ['tar', 'xf', '-', '-C', dir], { stdin: tarOf('blob.bin', bytes) });
      assert.equal(put.code, 0, put.stderr);
      const got = await exec(streams, target, ['tar', 'cf', '-', '-C', dir, 'blob.bin']);
      assert.equal(got.code, 0, got.stderr);
      assert.ok(untarOne(got.stdout, 'blob.bin').equals(bytes));
    });
  }

  it('attach: the running container\'s stdout and stderr from now on, until it exits; input to a container without stdin goes nowhere', async () => {
    const app = targets.get('app') ?? (await running('app'));
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c) => (out += String(c)));
    stderr.on('data', (c) => (err += String(c)));
    const abort = new AbortController();
    const attached = streams.attach(app, { stdin: false, stdout: true, stderr: true, tty: false }, { stdout, stderr, signal: abort.signal });
    await waitFor('attached output', () => Promise.resolve(out.includes('t ') && err.includes('e ') ? true : undefined));
    assert.doesNotMatch(out, /^e /m);
    assert.doesNotMatch(err, /^t /m);
    abort.abort();
    await attached;
    // A container without `stdin: true` takes no input, as with containerd and CRI-O: the session is its output alone.
    const noInput = new PassThrough();
    const noInputOut = new PassThrough();
    let quiet = '';
    noInputOut.on('data', (c) => (quiet += String(c)));
    const quietAbort = new AbortController();
    const withStdin = streams.attach(app, { stdin: true, stdout: true, stderr: true, tty: false }, { stdin: noInput, stdout: noInputOut, stderr: new PassThrough(), signal: quietAbort.signal });
    noInput.write('ignored\n');
    await waitFor('output while sending input nowhere', () => Promise.resolve(quiet.includes('t ') ? true : undefined));
    quietAbort.abort();
    await withStdin;
    const crash = await running('crash', 1);
    const crashOut = new PassThrough();
    crashOut.resume();
    const started = Date.now();
    await streams.attach(crash, { stdin: false, stdout: true, stderr: true, tty: false }, { stdout: crashOut, stderr: crashOut, signal: new AbortController().signal }).catch(() => undefined);
    assert.ok(Date.now() - started < 15_000, 'attach ended with the container');
  });

  it('port-forward: 50 concurrent requests to a server bound to 127.0.0.1 in the pod, half-close; a refused port fails only its own connection', async () => {
    const app = targets.get('app') ?? (await running('app'));
    const request = async (): Promise<string> => {
      const socket: Duplex = await streams.portForward({ ...app, container: '' }, 8080);
      const body = collect(socket);
      socket.end('GET / HTTP/1.0\r\n\r\n');
      return String(await body);
    };
    const refused = streams.portForward({ ...app, container: '' }, 8081).then(() => undefined, (error: unknown) => error);
    const answers = await Promise.all(Array.from({ length: 50 }, () => request()));
    for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200 OK[\s\S]*hello from the pod$/);
    const failure = await refused;
    assert.ok(failure instanceof SiteStreamError && /^failed to connect to localhost:8081 inside namespace "[^"]+", IPv4: dial tcp4 127\.0\.0\.1:8081: connect: connection refused/.test(failure.message), String(failure));
    assert.match(await request(), /hello from the pod/);
  });

  it('measures runc exec of `true` against the streams\' exec (20 runs each)', async () => {
    const box = targets.get('box') ?? (await running('box'));
    const root = runcStateRoot(env.netns(SITE));
    const id = podContainerId(box.uid, 'c-0');
    const raw: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < 20; i++) {
      let start = performance.now();
      await new Promise<void>((resolve, reject) => execFile(toolPath('runc'), ['--root', root, 'exec', id, 'true'], (error) => {
        if (error !== null) reject(new Error(error.message));
        else resolve();
      }));
      raw.push(performance.now() - start);
      start = performance.now();
      assert.equal((await exec(streams, box, ['true'])).code, 0);
      ours.push(performance.now() - start);
    }
    console.log(`exec of true: runc exec p50 ${percentile(raw, 50).toFixed(1)} ms p99 ${percentile(raw, 99).toFixed(1)} ms; streams exec p50 ${percentile(ours, 50).toFixed(1)} ms p99 ${percentile(ours, 99).toFixed(1)} ms`);
  });
});
