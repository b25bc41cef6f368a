import { request, type IncomingMessage } from 'node:http';
import { isIP, isIPv6, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Container, Handler } from '../../../../api/pod-spec-types.js';
import type { Timers } from '../../../../common/timers.js';
import type { ProbeResult } from './probe-state.js';
import { expandVariables } from '../containers/index.js';

/** A connected TCP socket to `host:port`, made inside the pod's network (the agent's `NetnsSocketBroker.dial`). Rejects with an error carrying the kernel's `code` (`ECONNREFUSED`, `ETIMEDOUT`, …). */
export type Dial = (host: string, port: number, timeoutMs: number) => Promise<Socket>;

/** Runs `command` in the container (the agent's `runc exec`): its exit code and its stdout and stderr together. */
export type ExecInContainer = (command: readonly string[], timeoutMs: number) => Promise<{ exitCode: number; output: string }>;

/** What a probe runs against. */
export interface ProbeTarget {
  readonly podIP: string;
  readonly container: Pick<Container, 'ports' | 'env'>;
  readonly dial: Dial;
  readonly exec: ExecInContainer;
  /** The runtime's clock: a probe's timeout is timed on it. */
  readonly timers: Timers;
}

/** kubelet's User-Agent: kube-probe/<major>.<minor> of the Kubernetes version it speaks. */
const USER_AGENT = 'kube-probe/1.17';
const MAX_BODY_BYTES = 10 * 1024;
const MAX_REDIRECTS = 10;

/** Runs one exec, httpGet or tcpSocket probe as kubelet's probers do, within `timeoutMs`. */
export async function runProbe(handler: Handler, timeoutMs: number, target: ProbeTarget): Promise<ProbeResult> {
  try {
    if (handler.exec !== undefined) return await execProbe(handler.exec.command ?? [], timeoutMs, target);
    if (handler.httpGet !== undefined) {
      const { httpGet } = handler;
      const port = containerPort(httpGet.port, target.container);
      const url = probeUrl((httpGet.scheme ?? 'HTTP').toLowerCase(), httpGet.host || target.podIP, port, httpGet.path ?? '');
      return await httpProbe(url, httpGet.httpHeaders ?? [], timeoutMs, target);
    }
    if (handler.tcpSocket !== undefined) {
      const port = containerPort(handler.tcpSocket.port, target.container);
      return await tcpProbe(handler.tcpSocket.host || target.podIP, port, timeoutMs, target.dial);
    }
    return { outcome: 'error', output: 'missing probe handler' };
  } catch (error) {
    return { outcome: 'error', output: error instanceof Error ? error.message : String(error) };
  }
}

/** kubelet's `extractPort`: a number, a named port of the container, or a number written as a string. */
export function containerPort(port: number | string | undefined, container: Pick<Container, 'ports'>): number {
  let value: number;
  if (typeof port === 'number') value = port;
  else if (typeof port === 'string') {
    const named = (container.ports ?? []).find((each) => each.name === port);
    if (named !== undefined) value = named.containerPort ?? 0;
    else if (/^[+-]?\d+$/.test(port)) value = Number.parseInt(port, 10);
    else throw new Error(`strconv.Atoi: parsing ${JSON.stringify(port)}: invalid syntax`);
  } else throw new Error('intOrString had no kind');
  if (value > 0 && value < 65536) return value;
  throw new Error(`invalid port number: ${value}`);
}

export function hostPort(host: string, port: number): string {
  return isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

/** kubelet's `formatURL`; `shown` is the URL as Go prints it in errors (the port kept even when it is the scheme's). */
function probeUrl(scheme: string, host: string, port: number, path: string): { url: URL; shown: string } {
  const shown = `${scheme}://${hostPort(host, port)}${path.startsWith('/') ? path : `/${path}`}`;
  return { url: new URL(shown), shown };
}

async function tcpProbe(host: string, port: number, timeoutMs: number, dial: Dial): Promise<ProbeResult> {
  try {
    const socket = await dial(host, port, timeoutMs);
    socket.destroy();
    return { outcome: 'success' };
  } catch (error) {
    return { outcome: 'failure', output: dialError(host, port, error) };
  }
}

/** A failed dial in Go's words (`dial tcp 10.0.0.5:80: connect: connection refused`), as kubelet reports it. */
function dialError(host: string, port: number, error: unknown): string {
  const code = (error as { code?: string }).code;
  const reason =
    {
      ECONNREFUSED: 'connect: connection refused',
      EHOSTUNREACH: 'connect: no route to host',
      ENETUNREACH: 'connect: network is unreachable',
      ETIMEDOUT: 'i/o timeout',
      ECONNRESET: 'read: connection reset by peer',
    }[code ?? ''] ?? (error instanceof Error ? error.message : String(error));
  return `dial tcp ${hostPort(host, port)}: ${reason}`;
}

async function execProbe(command: readonly string[], timeoutMs: number, target: ProbeTarget): Promise<ProbeResult> {
  const env = new Map((target.container.env ?? []).map((variable) => [variable.name ?? '', variable.value ?? '']));
  const expanded = command.map((arg) => expandVariables(arg, (name) => env.get(name)));
  const timedOut = `command ${JSON.stringify(expanded.join(' '))} timed out`;
  let cancel: (() => void) | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (cancel = target.timers.schedule(() => resolve('timeout'), timeoutMs)));
  try {
    const result = await Promise.race([target.exec(expanded, timeoutMs), deadline]);
    if (result === 'timeout') return { outcome: 'failure', output: timedOut };
    return result.exitCode === 0 ? { outcome: 'success', output: result.output } : { outcome: 'failure', output: result.output };
  } catch (error) {
    if ((error as { code?: string }).code === 'ETIMEDOUT') return { outcome: 'failure', output: timedOut };
    throw error;
  } finally {
    cancel?.();
  }
}

/** One HTTP GET's answer (`httpGet`): the status, a redirect's target, at most 10 KiB of the body. */
interface HttpAnswer {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
}

/**
 * kubelet's HTTP probe: GET with its User-Agent and the probe's headers, no keep-alive, TLS
 * without verification; 2xx success, 3xx to the same host followed (10 at most), 3xx to
 * another host a warning, anything else a failure naming the status; at most 10 KiB of the
 * body is read. The whole exchange must finish within the timeout.
 */
async function httpProbe(request: { url: URL; shown: string }, headers: ReadonlyArray<{ name?: string; value?: string }>, timeoutMs: number, target: Pick<ProbeTarget, 'dial' | 'timers'>): Promise<ProbeResult> {
  const deadline = target.timers.now() + timeoutMs;
  const first = request.url;
  let url = first;
  let shown = request.shown;
  let redirects = 0;
  for (;;) {
    let answer: HttpAnswer;
    try {
      answer = await httpGet(url, headers, deadline, target);
    } catch (error) {
      return { outcome: 'failure', output: `Get ${shown}: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
      const next = new URL(answer.location, url);
      if (next.hostname !== first.hostname || !/^https?:$/.test(next.protocol)) return { outcome: 'warning', output: answer.body };
      if (++redirects >= MAX_REDIRECTS) return { outcome: 'failure', output: `Get ${answer.location}: stopped after ${MAX_REDIRECTS} redirects` };
      url = next;
      shown = next.href;
      continue;
    }
    if (answer.status >= 200 && answer.status < 300) return { outcome: 'success', output: answer.body };
    if (answer.status >= 300 && answer.status < 400) return { outcome: 'warning', output: answer.body };
    return { outcome: 'failure', output: `HTTP probe failed with statuscode: ${answer.status}` };
  }
}

/**
 * One GET of `url` through `dial`, no keep-alive, TLS unverified; kubelet's User-Agent unless
 * `headers` name one; rejects with Go's words after `deadline` (on `timers`' clock).
 */
export function httpGet(url: URL, headers: ReadonlyArray<{ name?: string; value?: string }>, deadline: number, { dial, timers }: Pick<ProbeTarget, 'dial' | 'timers'>): Promise<HttpAnswer> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const names = new Set(headers.map((header) => (header.name ?? '').toLowerCase()));
  const outgoing: Array<[string, string]> = headers.filter((header) => (header.name ?? '') !== '').map((header) => [header.name as string, header.value ?? '']);
  if (!names.has('user-agent')) outgoing.push(['User-Agent', USER_AGENT]);
  if (!names.has('host')) outgoing.push(['Host', hostPort(host, port)]);
  outgoing.push(['Connection', 'close']);
  return new Promise((resolve, reject) => {
    const remaining = Math.max(1, deadline - timers.now());
    let settled = false;
    const finish = (error: Error | undefined, answer?: HttpAnswer): void => {
      if (settled) return;
      settled = true;
      cancel();
      req.destroy();
      if (error !== undefined) reject(error);
      else resolve(answer as HttpAnswer);
    };
    const cancel = timers.schedule(() => finish(new Error('net/http: request canceled (Client.Timeout exceeded while awaiting headers)')), remaining);
    const req = request({
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers: outgoing.flat(),
      setHost: false,
      createConnection: (_options, ready) => {
        dial(host, port, remaining).then(
          (socket) => {
            if (settled) {
              socket.destroy();
              return;
            }
            socket.resume();
            ready(null, url.protocol === 'https:' ? tlsConnect({ socket, rejectUnauthorized: false, ...(isIP(host) === 0 ? { servername: host } : {}) }) : socket);
          },
          (error: unknown) => finish(new Error(dialError(host, port, error))),
        );
        return undefined;
      },
    });
    // Node's "socket hang up" is the server closing before it answered: Go says EOF.
    req.on('error', (error) => finish(error.message === 'socket hang up' ? new Error('EOF') : error));
    req.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => {
        const location = response.headers.location;
        finish(undefined, { status: response.statusCode ?? 0, location, body: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString() });
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BODY_BYTES) done();
      });
      response.on('end', done);
      response.on('error', (error) => finish(error));
    });
    req.end();
  });
}
