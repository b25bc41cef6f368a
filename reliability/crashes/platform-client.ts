import { httpsRequest } from '../../src/client/https-client.js';

/** The starter virtual cluster `server --local-sites` makes (default/vk8s), as a base path. */
export const VK8S = '/api/vk8s/namespaces/default/vk8s';

export interface Answer {
  readonly status: number;
  readonly body: string;
  json<T>(): T;
}

/**
 * The crash load's client: one HTTPS request per call, no keep-alive (a killed server takes no
 * pooled socket with it), the tenant admin's API token for both the configuration API and the
 * virtual cluster. A request the server does not answer rejects.
 */
export class PlatformClient {
  constructor(
    private readonly url: string,
    private readonly ca: string,
    private readonly token: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const answer = await httpsRequest(`${this.url}${path}`, this.ca, {
      method,
      headers: { authorization: `APIToken ${this.token}`, 'content-type': 'application/json' },
      timeoutMs: 15_000,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: answer.body, json: <T>() => JSON.parse(answer.body) as T };
  }

  /** GET that resolves to the answer once it is a 200 or a 404, retrying anything else for up to `timeoutMs`. */
  async read(path: string, timeoutMs = 30_000): Promise<Answer> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    for (;;) {
      try {
        const answer = await this.call('GET', path);
        if (answer.status === 200 || answer.status === 404) return answer;
        last = `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      if (Date.now() > deadline) throw new Error(`GET ${path} failed for ${timeoutMs / 1000} s: ${last}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
