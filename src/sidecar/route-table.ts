/** A route found: what was registered, and the `:name` segments of the path (percent-decoded). */
export interface RouteMatch<T> {
  readonly value: T;
  readonly params: Readonly<Record<string, string>>;
}

interface ParamRoute<T> {
  readonly method: string;
  /** The pattern's segments; a `:name` one matches any one non-empty segment. */
  readonly segments: readonly string[];
  readonly value: T;
}

/**
 * The sidecar's routes: a handful of `method + pattern` pairs where a pattern is a path whose
 * `:name` segments match one non-empty segment each (`/trust/pki/:bundle`); nothing else
 * (no wildcards, no optional or regex parameters, a trailing slash is another path). Exact
 * paths are one Map look-up (`GET /status`, `POST /secret/unseal`: the hot paths); the few
 * patterns are compared segment by segment. Replaces find-my-way, whose ~30 modules cost
 * every pod's sidecar ~10 MB and 60 ms of CPU at start for five routes (docs/RUNTIME.md).
 */
export class RouteTable<T> {
  private readonly exact = new Map<string, T>();
  private readonly patterns: ParamRoute<T>[] = [];

  add(method: string, pattern: string, value: T): void {
    if (!pattern.startsWith('/')) throw new Error(`a route pattern starts with "/": ${pattern}`);
    const segments = pattern.split('/');
    if (segments.some((s) => s.startsWith(':'))) this.patterns.push({ method, segments, value });
    else this.exact.set(`${method} ${pattern}`, value);
  }

  /** The route of `method` and `path` (without query), or null. */
  find(method: string, path: string): RouteMatch<T> | null {
    const exact = this.exact.get(`${method} ${path}`);
    if (exact !== undefined) return { value: exact, params: {} };
    if (this.patterns.length === 0) return null;
    const segments = path.split('/');
    for (const route of this.patterns) {
      if (route.method !== method || route.segments.length !== segments.length) continue;
      const params = matchSegments(route.segments, segments);
      if (params !== undefined) return { value: route.value, params };
    }
    return null;
  }
}

function matchSegments(pattern: readonly string[], path: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i] as string;
    const got = path[i] as string;
    if (!want.startsWith(':')) {
      if (want !== got) return undefined;
      continue;
    }
    if (got === '') return undefined;
    try {
      params[want.slice(1)] = decodeURIComponent(got);
    } catch {
      return undefined; // a malformed escape matches nothing
    }
  }
  return params;
}
