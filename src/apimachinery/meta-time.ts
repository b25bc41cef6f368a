/**
 * metav1.Time on the wire: RFC 3339 in UTC with whole seconds, as Go's `time.RFC3339` layout
 * that kube's `Time.MarshalJSON` uses (a fraction is dropped, not rounded). Every timestamp
 * the APIs and the site agents write into Kubernetes objects goes through here. Pure.
 */
export function metav1Time(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
