import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../apimachinery/errors/status-error.js';
import type { AgentDirectory, KnownAgent } from './agent-directory.js';
import { watchBoundPods, type BoundPodEvent, type BoundPodSource } from './bound-pod-watch.js';

export interface BoundPodStreamOptions {
  readonly agent: KnownAgent;
  readonly agents: AgentDirectory;
  readonly source: BoundPodSource;
  readonly bookmarkIntervalMs: number;
  /** Ends the stream (server shutdown). */
  readonly signal: AbortSignal;
}

type Query = Record<string, string | string[] | undefined>;
const single = (query: Query, name: string): string | undefined => {
  const value = query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
};

/** Pure: `watch` must be set; `resourceVersion` unset or "0" = from the current state; `timeoutSeconds` optional. */
export function parsePodWatchQuery(query: Query): { resourceVersion?: number; timeoutSeconds?: number } {
  const watch = single(query, 'watch');
  if (watch !== '1' && watch !== 'true') throw StatusError.badRequest('the site pod API is a watch: add ?watch=1');
  const rv = single(query, 'resourceVersion') ?? '';
  if (rv !== '' && !/^\d+$/.test(rv)) throw StatusError.badRequest(`resourceVersion: Invalid value: "${rv}": must be a non-negative integer`);
  const timeout = single(query, 'timeoutSeconds') ?? '';
  if (timeout !== '' && !/^\d+$/.test(timeout)) throw StatusError.badRequest(`timeoutSeconds: Invalid value: "${timeout}": must be a non-negative integer`);
  return { ...(rv === '' || rv === '0' ? {} : { resourceVersion: Number(rv) }), ...(timeout === '' ? {} : { timeoutSeconds: Number(timeout) }) };
}

function line(event: BoundPodEvent): string {
  return event.type === 'BOOKMARK' ? `${JSON.stringify({ type: event.type, object: event.object })}\n` : `${JSON.stringify({ type: event.type, cluster: event.cluster, object: event.object })}\n`;
}

/**
 * `GET /api/sites/v1/pods?watch=1`: newline-delimited JSON events of the pods bound to the
 * agent's sites. A too old resourceVersion is answered 410 Expired (a Status) before the
 * stream starts; otherwise 200 with headers flushed, events as they come, until the client
 * leaves, `timeoutSeconds` (default 30–60 minutes, spread like kube's) or the server stops.
 */
export async function streamBoundPods(request: FastifyRequest, reply: FastifyReply, options: BoundPodStreamOptions): Promise<void> {
  const { resourceVersion, timeoutSeconds } = parsePodWatchQuery(request.query as Query);
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  const events = watchBoundPods(options.source, {
    sites: () => options.agents.cached(options.agent.name)?.sites ?? options.agent.sites,
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    signal: controller.signal,
  });
  // A resourceVersion out of the cache's window fails at once: answer it as a plain 410.
  let pending: Promise<IteratorResult<BoundPodEvent>> | undefined = events.next();
  try {
    await Promise.race([pending, new Promise<void>((resolve) => setImmediate(resolve))]);
  } catch (error) {
    options.signal.removeEventListener('abort', stop);
    throw error;
  }
  const response = reply.raw;
  reply.hijack();
  response.on('close', stop);
  const timer = setTimeout(stop, (timeoutSeconds ?? 1800 + Math.floor(Math.random() * 1800)) * 1000);
  response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
  response.flushHeaders();
  try {
    for (;;) {
      const next = await (pending ?? events.next());
      pending = undefined;
      if (next.done === true || controller.signal.aborted) break;
      await write(response, line(next.value), controller.signal);
    }
  } catch (error) {
    // Mid-stream failures end the stream; the agent watches again from its last resourceVersion.
    if (error instanceof StatusError) await write(response, `${JSON.stringify({ type: 'ERROR', object: error.toStatus() })}\n`, controller.signal);
    else throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
    options.signal.removeEventListener('abort', stop);
    response.off('close', stop);
    await events.return(undefined);
    if (!response.writableEnded) response.end();
  }
}

function write(response: ServerResponse, text: string, signal: AbortSignal): Promise<void> {
  if (response.write(text) || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    response.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
