/** Time as kubelet writes it into pod statuses. */

/** RFC 3339 with seconds, as Kubernetes serialises metav1.Time. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Go's time.Duration text for whole seconds: `10s`, `1m20s`, `5m0s`. */
export function goSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}
