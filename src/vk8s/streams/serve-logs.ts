import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { parseLogQuery } from './log-options.js';
import { podStreamTarget, type PodScope } from './pod-target.js';
import { StreamError } from './stream-error.js';
import type { PodStreamBackend } from './types.js';

export interface LogRoute {
  /** The pod, as read from the store. */
  readonly pod: KubeObject;
  readonly scope: PodScope;
  readonly query: URLSearchParams;
}

/**
 * `GET …/pods/{name}/log`, after kube-apiserver 1.17: the query is decoded and validated
 * (400, 422 `PodLogOptions`), the container resolved (400), and the log streamed as
 * `text/plain` — headers flushed at once, chunks written as they come, so `follow=true`
 * streams until the backend ends the log or the client goes away (the response's `close`,
 * which destroys the backend stream). A pod on no node has an empty log. The backend's
 * refusals are Status errors (a node's text becomes `BadRequest` for 400, else
 * `InternalError`, as the API server's log checker maps kubelet answers). `limitBytes` is
 * enforced here too. The caller must have taken the response over (fastify: `reply.hijack()`).
 */
export async function serveLogs(response: ServerResponse, route: LogRoute, backend: PodStreamBackend, logger?: Logger): Promise<void> {
  let log: Readable | undefined;
  try {
    const query = parseLogQuery(route.query, route.pod.metadata.name ?? '');
    const target = podStreamTarget(route.pod, query.container, route.scope, 'log');
    if (target !== null) log = await backend.logs(target, { ...query, container: target.container });
  } catch (error) {
    sendStatus(response, statusOf(error, logger));
    return;
  }
  response.writeHead(200, { 'Content-Type': 'text/plain' });
  response.flushHeaders();
  if (log === undefined) {
    response.end();
    return;
  }
  await pump(log, response, limitOf(route.query), logger);
}

function limitOf(query: URLSearchParams): number {
  const limit = Number(query.get('limitBytes') ?? NaN);
  return Number.isFinite(limit) && limit > 0 ? limit : Infinity;
}

/** Copies the log to the response with backpressure until either side ends. */
function pump(log: Readable, response: ServerResponse, limit: number, logger: Logger | undefined): Promise<void> {
  return new Promise((resolve) => {
    let sent = 0;
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      log.off('data', onData);
      log.destroy();
      if (!response.writableEnded) response.end();
      resolve();
    };
    const onData = (chunk: Buffer | string): void => {
      let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (sent + bytes.length > limit) bytes = bytes.subarray(0, limit - sent);
      sent += bytes.length;
      if (!response.write(bytes)) {
        log.pause();
        response.once('drain', () => log.resume());
      }
      if (sent >= limit) stop();
    };
    log.on('data', onData);
    log.once('end', stop);
    log.once('error', (error: Error) => {
      logger?.debug({ err: error }, 'pod log stream failed');
      stop();
    });
    response.once('close', stop);
  });
}

function statusOf(error: unknown, logger: Logger | undefined): StatusError {
  if (error instanceof StatusError) return error;
  if (error instanceof StreamError) {
    if (error.status !== undefined) return error.status;
    return error.code === 400 ? StatusError.badRequest(error.message) : StatusError.internal(error.message);
  }
  logger?.error({ err: error }, 'pod log request failed');
  return StatusError.internal('an unexpected error; it has been logged');
}

function sendStatus(response: ServerResponse, error: StatusError): void {
  response.writeHead(error.code, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(error.toStatus()));
}
