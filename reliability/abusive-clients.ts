import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileLimit } from '../src/common/open-file-limit.js';
import { DEFAULT_SERVER_LIMITS } from '../src/server/server-limits.js';
import { openConnection, sendHeadersSlowly, statusOf, type RawConnection } from '../test/e2e/support/abusive-clients.js';
import { clusterWithKubeconfig } from '../test/e2e/support/cluster-credentials.js';
import { startServer, type ServerProcess } from '../test/e2e/support/server-process.js';
import type { AreaReport, ReliabilityArea, Scale } from './area.js';

interface ScaleSettings {
  /** Well-behaved GETs per scenario, half of a configuration object and half of a vK8s object. */
  readonly gets: number;
  readonly slowloris: number;
  readonly idle: number;
  /** The server's timeouts: the short scale shortens them so that the closings are seen quickly; the long one runs the defaults. */
  readonly readHeaderTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly readTimeoutMs: number;
}

const SCALES: Readonly<Record<Scale, ScaleSettings>> = {
  short: { gets: 100, slowloris: 30, idle: 200, readHeaderTimeoutMs: 3000, idleTimeoutMs: 3000, readTimeoutMs: 6000 },
  long: { gets: 400, slowloris: 300, idle: 2000, readHeaderTimeoutMs: DEFAULT_SERVER_LIMITS.readHeaderTimeoutMs, idleTimeoutMs: DEFAULT_SERVER_LIMITS.idleTimeoutMs, readTimeoutMs: DEFAULT_SERVER_LIMITS.readTimeoutMs },
};

/** Descriptors this process needs besides the abusive connections (the well-behaved client, the writer, files). */
const OWN_FILES = 100;
/** 64 KiB ConfigMaps: the writer that makes the watched resource busy. */
const CONFIGMAP_BYTES = 64 * 1024;
/** Creates sent at most before the non-reading watch must have been closed (~38 MiB). */
const MAX_CREATES = 600;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : '–');
const seconds = (value: number): string => (Number.isFinite(value) ? `${(value / 1000).toFixed(1)} s` : '–');

interface Subject {
  readonly server: ServerProcess;
  readonly ca: string;
  readonly token: string;
  readonly configPath: string;
  readonly vk8sPath: string;
  readonly cluster: { readonly server: string; readonly cert: string; readonly key: string };
}

interface GetRun {
  readonly latenciesMs: readonly number[];
  /** Requests answered other than 2xx, or not answered, with what happened. */
  readonly failures: readonly string[];
}

/** A GET through `agent`: its status, or the error's message. */
function get(subject: Subject, agent: Agent, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${subject.server.url}${path}`, { agent, ca: subject.ca, headers: { authorization: `APIToken ${subject.token}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', (error) => resolve(error.message));
    });
    req.on('error', (error) => resolve(error.message));
    req.end();
  });
}

/** The well-behaved client: `count` GETs one after another on one keep-alive connection, alternating the two objects. */
async function wellBehavedGets(subject: Subject, count: number): Promise<GetRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.1' });
  const latenciesMs: number[] = [];
  const failures: string[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const path = i % 2 === 0 ? subject.configPath : subject.vk8sPath;
      const started = performance.now();
      const outcome = await get(subject, agent, path);
      latenciesMs.push(performance.now() - started);
      if (typeof outcome !== 'number' || outcome < 200 || outcome > 299) failures.push(`GET ${path}: ${outcome}`);
    }
  } finally {
    agent.destroy();
  }
  return { latenciesMs: latenciesMs.sort((a, b) => a - b), failures };
}

/** Opens `count` connections, `parallel` at a time; undefined for each one the server refused. */
async function openMany<T>(count: number, parallel: number, open: (index: number) => Promise<T | undefined>): Promise<Array<T | undefined>> {
  const opened: Array<T | undefined> = [];
  for (let start = 0; start < count; start += parallel) {
    opened.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - start) }, (_, i) => open(start + i)))));
  }
  return opened;
}

/** A plain TCP connection that never starts TLS: when it was opened and when it closed. */
function openTcp(url: string, localAddress: string): Promise<{ openedAt: number; closed: Promise<number> } | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connectTcp({ host: hostname, port: Number(port), localAddress });
    socket.on('error', () => {});
    const closed = new Promise<number>((done) => socket.once('close', () => done(performance.now())));
    socket.once('connect', () => resolve({ openedAt: performance.now(), closed }));
    void closed.then(() => resolve(undefined));
  });
}

/** Waits for every closing, or `timeoutMs`; the lifetimes of those that closed, sorted, and how many did not. */
async function lifetimes(connections: ReadonlyArray<{ openedAt: number; closed: Promise<number> }>, timeoutMs: number): Promise<{ sorted: number[]; open: number }> {
  const deadline = sleep(timeoutMs).then(() => undefined);
  const ends = await Promise.all(connections.map((c) => Promise.race([c.closed, deadline])));
  const sorted = ends.flatMap((end, i) => (end === undefined ? [] : [end - (connections[i]?.openedAt ?? end)])).sort((a, b) => a - b);
  return { sorted, open: ends.filter((end) => end === undefined).length };
}

async function metric(subject: Subject, line: string): Promise<number> {
  const text = await new Promise<string>((resolve) => {
    const req = request(`${subject.server.url}/metrics`, { ca: subject.ca, agent: false, localAddress: '127.0.0.1' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(body));
    });
    req.on('error', () => resolve(''));
    req.end();
  });
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

async function alive(subject: Subject): Promise<boolean> {
  if (subject.server.child.exitCode !== null) return false;
  const agent = new Agent({ keepAlive: false, localAddress: '127.0.0.1' });
  const status = await get(subject, agent, '/livez');
  agent.destroy();
  return status === 200;
}

interface Row {
  readonly scenario: string;
  readonly abusers: string;
  readonly run: GetRun;
  readonly serverSide: string;
}

export const abusiveClients: ReliabilityArea = {
  name: 'abusive-clients',
  description: 'a well-behaved client\'s GETs alone and during slowloris, idle connections and a non-reading watch: every answer 2xx, the server alive',
  async run(scale, progress): Promise<AreaReport> {
    const settings = SCALES[scale];
    const files = openFileLimit();
    const idle = files === undefined ? settings.idle : Math.max(0, Math.min(settings.idle, files.soft - OWN_FILES));
    const notes: string[] = [
      `- Open-file limit (\`ulimit -n\`, as node raised it at start to the hard limit): ${files === undefined ? 'unknown (no /proc/self/limits)' : `soft ${files.soft}, hard ${files.hard}`}, for this process and the server it starts; ${idle < settings.idle ? `**${settings.idle} idle connections do not fit: ${idle} were opened**` : `${settings.idle} idle connections fit`}.`,
      `- Server: \`--read-header-timeout ${settings.readHeaderTimeoutMs / 1000}s --idle-timeout ${settings.idleTimeoutMs / 1000}s --read-timeout ${settings.readTimeoutMs / 1000}s\`, connection caps ${DEFAULT_SERVER_LIMITS.maxConnections} / ${DEFAULT_SERVER_LIMITS.maxConnectionsPerAddress} per address (defaults), configuration API rate limit off (this is not the rate limit's test: the well-behaved client sends back to back). The abusive clients connect from other loopback addresses (127.0.0.2–127.0.0.9) than the well-behaved one (127.0.0.1), as other hosts would.`,
      `- Well-behaved client: ${settings.gets} GETs per scenario, one after another on one keep-alive connection, alternating a configuration object (\`virtual_k8s\`) and a vK8s ConfigMap.`,
    ];
    const root = mkdtempSync(join(tmpdir(), 'edgeplane-reliability-abuse-'));
    const home = join(root, 'home');
    const failures: string[] = [];
    const rows: Row[] = [];
    let server: ServerProcess | undefined;
    try {
      progress('starting the server');
      server = await startServer(home, [
        '--read-header-timeout', `${settings.readHeaderTimeoutMs}ms`,
        '--idle-timeout', `${settings.idleTimeoutMs}ms`,
        '--read-timeout', `${settings.readTimeoutMs}ms`,
        '--config-api-rate', '0',
      ]);
      const cluster = clusterWithKubeconfig(home, root, 'default', 'vk1');
      const subject: Subject = {
        server,
        ca: readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'),
        token: readFileSync(join(home, 'api-token'), 'utf8').trim(),
        configPath: '/api/config/namespaces/default/virtual_k8ss/vk1',
        vk8sPath: '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/configmaps/probe',
        cluster,
      };
      await createConfigMap(subject, 'probe', 'x');
      const check = (scenario: string, run: GetRun): void => {
        for (const failure of run.failures.slice(0, 5)) failures.push(`${scenario}: ${failure}`);
        if (run.failures.length > 5) failures.push(`${scenario}: … ${run.failures.length - 5} more`);
      };
      const checkAlive = async (scenario: string): Promise<void> => {
        if (!(await alive(subject))) failures.push(`${scenario}: the server did not answer /livez afterwards`);
      };

      progress('baseline: the well-behaved client alone');
      await wellBehavedGets(subject, 100); // warm-up
      const baseline = await wellBehavedGets(subject, settings.gets);
      check('baseline', baseline);
      rows.push({ scenario: 'alone (baseline)', abusers: '–', run: baseline, serverSide: '–' });

      // (a) slowloris: each connection starts a request and sends one header byte a second.
      progress(`(a) ${settings.slowloris} slowloris connections`);
      const timeoutsBefore = await metric(subject, 'edgeplane_http_read_timeouts_total');
      const slow = (await openMany(settings.slowloris, 50, () => openConnection(subject.server.url, { ca: subject.ca, localAddress: '127.0.0.2' }))).filter((c): c is RawConnection => c !== undefined);
      for (const connection of slow) sendHeadersSlowly(connection, 1000);
      const duringSlowloris = await wellBehavedGets(subject, settings.gets);
      check('slowloris', duringSlowloris);
      const slowLives = await lifetimes(slow, settings.readHeaderTimeoutMs + 15_000);
      const answered408 = slow.filter((c) => statusOf(c.received()) === 408).length;
      const timeouts = (await metric(subject, 'edgeplane_http_read_timeouts_total')) - timeoutsBefore;
      if (slowLives.open > 0) failures.push(`slowloris: ${slowLives.open} connections were still open ${seconds(settings.readHeaderTimeoutMs + 15_000)} after they opened`);
      rows.push({
        scenario: `(a) slowloris, a header byte/s`,
        abusers: `${slow.length} of ${settings.slowloris} accepted`,
        run: duringSlowloris,
        serverSide: `all closed after ${seconds(slowLives.sorted[0] ?? Number.NaN)}–${seconds(slowLives.sorted.at(-1) ?? Number.NaN)} (header timeout), ${answered408} with 408; read timeouts counted ${timeouts}`,
      });
      await checkAlive('slowloris');

      // (b) idle connections, a third of each kind: TLS but never a request; one request and then idle (keep-alive); TCP that never starts TLS.
      progress(`(b) ${idle} idle connections`);
      const rejectedBefore = await rejectedConnections(subject);
      const address = (i: number): string => `127.0.0.${3 + (i % 4)}`;
      const kinds = await openMany(idle, 100, async (i) => {
        if (i % 3 === 2) return (await openTcp(subject.server.url, address(i))) ?? undefined;
        const connection = await openConnection(subject.server.url, { ca: subject.ca, localAddress: address(i) });
        if (connection !== undefined && i % 3 === 1) connection.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
        return connection;
      });
      const held = await metric(subject, 'edgeplane_http_connections');
      const duringIdle = await wellBehavedGets(subject, settings.gets);
      check('idle connections', duringIdle);
      const refused = (await rejectedConnections(subject)) - rejectedBefore;
      const kindName = ['TLS, no request', 'keep-alive after one request', 'TCP, no TLS handshake'] as const;
      const waitMs = Math.max(settings.readHeaderTimeoutMs, settings.idleTimeoutMs) + 15_000;
      const byKind = await Promise.all(
        kindName.map(async (name, kind) => {
          const mine = kinds.filter((c, i) => c !== undefined && i % 3 === kind) as Array<{ openedAt: number; closed: Promise<number> }>;
          const lives = await lifetimes(mine, waitMs);
          if (lives.open > 0) failures.push(`idle (${name}): ${lives.open} connections were still open ${seconds(waitMs)} after they opened`);
          return `${name}: ${mine.length} closed after ${seconds(lives.sorted[0] ?? Number.NaN)}–${seconds(lives.sorted.at(-1) ?? Number.NaN)}`;
        }),
      );
      rows.push({
        scenario: '(b) idle connections',
        abusers: `${kinds.filter((c) => c !== undefined).length} of ${idle} accepted (${held} open at the server), ${refused} refused at a cap`,
        run: duringIdle,
        serverSide: byKind.join('; '),
      });
      await checkAlive('idle connections');

      // (c) a watch that never reads, on a resource a writer keeps busy.
      progress('(c) a non-reading watch on a busy resource');
      const watch = await nonReadingWatch(subject);
      const writer = busyWriter(subject, () => closedLog(subject.server));
      const duringWatch = await wellBehavedGets(subject, settings.gets);
      check('non-reading watch', duringWatch);
      const written = await writer.finish();
      const watchClosed = closedLog(subject.server);
      if (!watchClosed) failures.push(`non-reading watch: not closed after ${written.creates} creates of ${CONFIGMAP_BYTES / 1024} KiB`);
      if (written.failures > 0) failures.push(`non-reading watch: ${written.failures} of the writer's creates failed`);
      rows.push({
        scenario: '(c) a non-reading watch, busy resource',
        abusers: `1 watch; ${written.creates} creates of ${CONFIGMAP_BYTES / 1024} KiB`,
        run: duringWatch,
        serverSide: watchClosed ? `watch closed (unread bytes over the bound) after ${written.createsWhenClosed} creates` : 'watch not closed',
      });
      watch.socket.destroy();
      await checkAlive('non-reading watch');
    } catch (error) {
      failures.push(`the area stopped: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await server?.stop();
      rmSync(root, { recursive: true, force: true });
    }
    const markdown = [
      '| scenario | abusive clients | well-behaved GETs 2xx | p50 ms | p99 ms | what the server did |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.scenario} | ${r.abusers} | ${r.run.latenciesMs.length - r.run.failures.length} / ${r.run.latenciesMs.length} | ${ms(percentile(r.run.latenciesMs, 50))} | ${ms(percentile(r.run.latenciesMs, 99))} | ${r.serverSide} |`),
      '',
      ...notes,
      '- Timings are reported, not asserted: `ok` means every well-behaved GET was answered 2xx, the server answered `/livez` after each scenario, and every abusive connection was closed by the server.',
    ];
    return { ok: failures.length === 0, markdown, failures };
  },
};

async function rejectedConnections(subject: Subject): Promise<number> {
  return (await metric(subject, 'edgeplane_http_connections_rejected_total{reason="server"}')) + (await metric(subject, 'edgeplane_http_connections_rejected_total{reason="address"}'));
}

function closedLog(server: ServerProcess): boolean {
  return server.logs.some((l) => l['msg'] === 'watch closed: its client stopped reading');
}

async function createConfigMap(subject: Subject, name: string, value: string, agent?: Agent): Promise<number | string> {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });
  const path = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/configmaps';
  return new Promise((resolve) => {
    const req = request(
      `${subject.server.url}${path}`,
      { method: 'POST', agent: agent ?? false, ca: subject.ca, headers: { authorization: `APIToken ${subject.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', (error) => resolve(error.message));
    req.end(body);
  });
}

/** A watch of the ConfigMaps from another address whose client never reads a byte. */
async function nonReadingWatch(subject: Subject): Promise<RawConnection> {
  const base = new URL(subject.cluster.server);
  const connection = await openConnection(subject.server.url, { ca: subject.ca, cert: subject.cluster.cert, key: subject.cluster.key, localAddress: '127.0.0.9' });
  if (connection === undefined) throw new Error('the watch connection was refused');
  connection.socket.pause();
  connection.socket.write(`GET ${base.pathname}/api/v1/namespaces/default/configmaps?watch=1 HTTP/1.1\r\nHost: ${base.host}\r\n\r\n`);
  return connection;
}

/** Creates 64 KiB ConfigMaps, two at a time, until `done()` (and the GETs) or MAX_CREATES. */
function busyWriter(subject: Subject, done: () => boolean): { finish(): Promise<{ creates: number; failures: number; createsWhenClosed: number }> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 2, localAddress: '127.0.0.8' });
  let creates = 0;
  let failures = 0;
  let createsWhenClosed = Number.NaN;
  let stop = false;
  const value = 'x'.repeat(CONFIGMAP_BYTES);
  const loop = async (): Promise<void> => {
    while (!stop && creates < MAX_CREATES) {
      if (done() && Number.isNaN(createsWhenClosed)) createsWhenClosed = creates;
      const status = await createConfigMap(subject, `busy-${creates++}`, value, agent);
      if (status !== 201) failures++;
    }
  };
  const loops = Promise.all([loop(), loop()]);
  return {
    finish: async () => {
      // Once the GETs are done, write on until the watch is closed.
      while (!done() && creates < MAX_CREATES) await sleep(20);
      stop = true;
      await loops;
      agent.destroy();
      if (done() && Number.isNaN(createsWhenClosed)) createsWhenClosed = creates;
      return { creates, failures, createsWhenClosed };
    },
  };
}
