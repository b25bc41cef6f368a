/**
 * Health endpoints after kube-apiserver's conventions (`/livez`, `/readyz`, `/healthz`):
 * - `GET /readyz` → 200 `ok`, or 500 listing every check (`[+]name ok`, `[-]name failed:
 *   reason withheld`) and `readyz check failed`; the reason goes to the log only.
 * - `?verbose` lists every check also on success, ending in `readyz check passed`.
 * - `?exclude=name` (repeatable) skips a check (`[+]name excluded: ok`).
 * - `GET /readyz/<name>` runs one check: 200 `ok` or 500 `internal server error: <reason>`.
 */
export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; rejects (or throws) with the reason otherwise. */
  run(): Promise<void>;
}

export type HealthEndpoint = 'livez' | 'readyz' | 'healthz';

export interface CheckResult {
  readonly name: string;
  readonly status: 'ok' | 'failed' | 'excluded';
  readonly reason?: string;
}

export interface HealthReport {
  readonly statusCode: 200 | 500;
  readonly body: string;
  readonly failures: readonly CheckResult[];
}

export async function runChecks(
  checks: readonly HealthCheck[],
  exclude: ReadonlySet<string>,
  timeoutMs: number,
): Promise<CheckResult[]> {
  return Promise.all(
    checks.map(async (check): Promise<CheckResult> => {
      if (exclude.has(check.name)) return { name: check.name, status: 'excluded' };
      try {
        await withTimeout(check.run(), timeoutMs, `${check.name} check timed out after ${timeoutMs} ms`);
        return { name: check.name, status: 'ok' };
      } catch (error) {
        return { name: check.name, status: 'failed', reason: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

/** Pure: the response for a set of results, exactly in kube-apiserver's text format. */
export function renderReport(
  endpoint: HealthEndpoint,
  results: readonly CheckResult[],
  options: { verbose: boolean; unknownExcludes?: readonly string[] },
): HealthReport {
  const failures = results.filter((r) => r.status === 'failed');
  const failed = failures.length > 0;
  if (!failed && !options.verbose) return { statusCode: 200, body: 'ok', failures };
  const lines = results.map((r) => {
    switch (r.status) {
      case 'ok':
        return `[+]${r.name} ok`;
      case 'excluded':
        return `[+]${r.name} excluded: ok`;
      case 'failed':
        return `[-]${r.name} failed: reason withheld`;
    }
  });
  const unknown = options.unknownExcludes ?? [];
  if (unknown.length > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${unknown.map((u) => `"${u}"`).join(',')}`);
  lines.push(`${endpoint} check ${failed ? 'failed' : 'passed'}`);
  return { statusCode: failed ? 500 : 200, body: lines.join('\n') + '\n', failures };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
