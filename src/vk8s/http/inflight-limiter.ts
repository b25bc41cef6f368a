/**
 * kube-apiserver's max-in-flight filter: at most `readOnly` non-mutating and `mutating`
 * mutating requests at once (defaults 400 and 200, as kube's flags); long-running requests
 * (watches, log follows, exec/attach/port-forward) are not counted. A request over the
 * limit is refused with 429 TooManyRequests and `Retry-After: 1`, which clients retry.
 */
export class InflightLimiter {
  private readonly inFlight = { readOnly: 0, mutating: 0 };

  constructor(private readonly limits: { readonly readOnly: number; readonly mutating: number } = { readOnly: 400, mutating: 200 }) {}

  /** Takes a slot; returns its release, or undefined when the limit is reached. */
  acquire(method: string): (() => void) | undefined {
    const kind = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'readOnly' : 'mutating';
    if (this.inFlight[kind] >= this.limits[kind]) return undefined;
    this.inFlight[kind]++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight[kind]--;
    };
  }
}

const LONG_RUNNING_SUBRESOURCES = /\/(exec|attach|portforward|proxy)(\?|$)/;

/** Watches, log follows and stream upgrades run for long: kube's long-running request check. */
export function isLongRunning(url: string): boolean {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  if (LONG_RUNNING_SUBRESOURCES.test(path)) return true;
  if (path.includes('/watch/')) return true;
  if (mark < 0) return false;
  const next = url.indexOf('?', mark + 1);
  const query = url.slice(mark + 1, next < 0 ? undefined : next);
  // Most queries cannot name `watch` or `follow` (their names may be percent-encoded): no parse for them.
  if (!query.includes('watch') && !query.includes('follow') && !query.includes('%')) return false;
  const params = new URLSearchParams(query);
  if (params.get('watch') === 'true' || params.get('watch') === '1') return true;
  return path.endsWith('/log') && params.get('follow') === 'true';
}
