/** Go's `time.Duration` text for whole seconds, as kubelet prints back-off delays: `10s`, `1m20s`, `5m0s`. */
export function goSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}
