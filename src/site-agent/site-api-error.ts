/** A failure answered by the site API: HTTP status and the Kubernetes Status' reason and message. */
export class SiteApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'SiteApiError';
  }

  /** The error of a non-2xx answer: the Status JSON's reason and message, else the body's start. */
  static of(what: string, status: number, body: string): SiteApiError {
    let reason = `HTTP ${status}`;
    let message = body.slice(0, 300);
    try {
      const parsed = JSON.parse(body) as { reason?: unknown; message?: unknown };
      if (typeof parsed.reason === 'string' && parsed.reason !== '') reason = parsed.reason;
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // not JSON: keep the body's start
    }
    return new SiteApiError(status, reason, `${what}: ${reason} (${status}): ${message}`);
  }
}
