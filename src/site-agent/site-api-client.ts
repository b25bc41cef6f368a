import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AgentCredential } from './agent-credential.js';
import { SiteApiError } from './site-api-error.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { BootstrapToken, HeartbeatResponse, PodEventReport, PodRef, PodStatusItem, PodStatusResult, PodWatchEvent } from '../site-api/site-api-types.js';

const REQUEST_TIMEOUT_MS = 30_000;

/** The kinds the agent reads from `GET /api/sites/v1/objects`. */
export type PlacedObjectKind = 'configmaps' | 'secrets' | 'persistentvolumeclaims' | 'services' | 'endpoints';

/** The answer of `GET /api/sites/v1/objects?kind=…`. */
export interface PlacedObjects {
  readonly resourceVersion: string;
  readonly items: readonly { readonly cluster: ClusterRef; readonly sites: readonly string[]; readonly object: KubeObject }[];
}

/**
 * The agent's side of the site API after registration: every request over mutual TLS with
 * the agent's client certificate, trusting only the platform CA, on one keep-alive
 * connection pool. Non-2xx answers throw {@link SiteApiError}.
 */
export class SiteApiClient {
  private readonly agent: Agent;
  private readonly server: string;

  constructor(credential: Pick<AgentCredential, 'server' | 'ca' | 'certificate' | 'key'>, options: { readonly maxSockets?: number } = {}) {
    this.server = credential.server;
    this.agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 8, ca: credential.ca, cert: credential.certificate, key: credential.key });
  }

  /** A heartbeat, bounded by `options` (its loop gives half an interval: heartbeat-loop.ts). */
  heartbeat(sites: readonly string[], options?: { readonly signal?: AbortSignal; readonly timeoutMs?: number }): Promise<HeartbeatResponse> {
    return this.post<HeartbeatResponse>('/api/sites/v1/heartbeat', { sites }, options);
  }

  async postStatuses(items: readonly PodStatusItem[]): Promise<readonly PodStatusResult[]> {
    const answer = await this.post<{ results?: PodStatusResult[] }>('/api/sites/v1/pods/status', { items });
    return answer.results ?? [];
  }

  /** Pod Events (`POST /api/sites/v1/pods/events`), each recorded on its pod by the control plane. */
  async postEvents(items: readonly PodEventReport[]): Promise<readonly PodStatusResult[]> {
    const answer = await this.post<{ results?: PodStatusResult[] }>('/api/sites/v1/pods/events', { items });
    return answer.results ?? [];
  }

  async postTerminated(items: readonly PodRef[]): Promise<readonly PodStatusResult[]> {
    const answer = await this.post<{ results?: PodStatusResult[] }>('/api/sites/v1/pods/terminated', { items });
    return answer.results ?? [];
  }

  /**
   * A bootstrap token of the identity service for a pod bound to one of this agent's sites,
   * to hand to the pod's sidecar when the site starts it. 403 when the pod is not on the
   * agent's sites, 404 when it (with that uid) no longer exists.
   */
  podIdentityToken(pod: PodRef): Promise<BootstrapToken> {
    return this.post<BootstrapToken>('/api/sites/v1/pods/identity-token', { tenant: pod.cluster.tenant, namespace: pod.cluster.namespace, vk8s: pod.cluster.name, pod: pod.name, uid: pod.uid });
  }

  /**
   * Opens the pod watch (from `resourceVersion` when resuming) and yields its events until
   * the server ends the stream or `signal` aborts. Throws SiteApiError (410 when the version
   * is too old) when the server refuses it.
   */
  async watchPods(resourceVersion: string | undefined, signal: AbortSignal): Promise<AsyncIterable<PodWatchEvent>> {
    const query = resourceVersion === undefined ? '' : `&resourceVersion=${encodeURIComponent(resourceVersion)}`;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${this.server}/api/sites/v1/pods?watch=1${query}`, { method: 'GET', agent: this.agent, signal, headers: { accept: 'application/json' } }, resolve);
      req.on('error', reject);
      req.end();
    });
    if (res.statusCode !== 200) {
      const body = await readBody(res);
      throw SiteApiError.of('watching pods failed', res.statusCode ?? 0, body);
    }
    return watchEvents(res);
  }

  /**
   * ConfigMaps, Secrets, claims, Services or Endpoints placed on this agent's sites, across its
   * tenants' virtual clusters (`GET /api/sites/v1/objects`). With `wait`, a long poll: the
   * server answers once something may have changed after `wait.after` (an earlier list's
   * resourceVersion), or after `wait.timeoutSeconds`.
   */
  placedObjects(kind: PlacedObjectKind, wait?: { readonly after: string; readonly timeoutSeconds: number; readonly signal?: AbortSignal }): Promise<PlacedObjects> {
    const path = `/api/sites/v1/objects?kind=${kind}${wait === undefined ? '' : `&after=${encodeURIComponent(wait.after)}&timeoutSeconds=${wait.timeoutSeconds}`}`;
    const timeoutMs = REQUEST_TIMEOUT_MS + (wait?.timeoutSeconds ?? 0) * 1000;
    return new Promise<PlacedObjects>((resolve, reject) => {
      const req = request(`${this.server}${path}`, { method: 'GET', agent: this.agent, timeout: timeoutMs, headers: { accept: 'application/json' }, ...(wait?.signal === undefined ? {} : { signal: wait.signal }) }, (res) => {
        readBody(res).then((text) => {
          if ((res.statusCode ?? 0) !== 200) return reject(SiteApiError.of(`GET ${path}`, res.statusCode ?? 0, text));
          try {
            resolve(JSON.parse(text) as PlacedObjects);
          } catch {
            reject(new Error(`GET ${path} answered a body that is not JSON: ${text.slice(0, 200)}`));
          }
        }, reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out after ${timeoutMs / 1000}s`)));
      req.on('error', reject);
      req.end();
    });
  }

  /** Events of a site's Service proxy (`POST /api/sites/v1/services/events`), each recorded on its Service. */
  async postServiceEvents(items: readonly PodEventReport[]): Promise<readonly PodStatusResult[]> {
    const answer = await this.post<{ results?: PodStatusResult[] }>('/api/sites/v1/services/events', { items });
    return answer.results ?? [];
  }

  close(): void {
    this.agent.destroy();
  }

  private post<T>(path: string, body: unknown, bounds: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {}): Promise<T> {
    const payload = JSON.stringify(body);
    const timeoutMs = bounds.timeoutMs ?? REQUEST_TIMEOUT_MS;
    return new Promise<T>((resolve, reject) => {
      const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
      const req = request(
        `${this.server}${path}`,
        { method: 'POST', agent: this.agent, timeout: timeoutMs, headers, ...(bounds.signal === undefined ? {} : { signal: bounds.signal }) },
        (res) => {
          readBody(res).then((text) => {
            if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return reject(SiteApiError.of(`POST ${path}`, res.statusCode ?? 0, text));
            try {
              resolve((text === '' ? {} : JSON.parse(text)) as T);
            } catch {
              reject(new Error(`POST ${path} answered a body that is not JSON: ${text.slice(0, 200)}`));
            }
          }, reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`POST ${path} timed out after ${timeoutMs / 1000}s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** Newline-delimited JSON watch events of a response; a line that is not JSON ends the stream with an error. */
async function* watchEvents(res: IncomingMessage): AsyncGenerator<PodWatchEvent> {
  let buffered = '';
  res.setEncoding('utf8');
  for await (const chunk of res as AsyncIterable<string>) {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== '') yield parseEvent(line);
      newline = buffered.indexOf('\n');
    }
  }
  if (buffered.trim() !== '') yield parseEvent(buffered.trim());
}

function parseEvent(line: string): PodWatchEvent {
  try {
    return JSON.parse(line) as PodWatchEvent;
  } catch {
    throw new Error(`the pod watch sent a line that is not JSON: ${line.slice(0, 200)}`);
  }
}
