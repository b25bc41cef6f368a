import type { WatchCacheMetrics } from '../observability/metrics.js';
import type { SweepPass } from './fan-out-sweep.js';

/** What a watch cache reports when a pass of its fan-out ends (`WatchCacheOptions.onPass`), recorded for one resource. */
export function fanOutPassRecorder(metrics: WatchCacheMetrics, labels: { readonly group: string; readonly resource: string }): (pass: SweepPass) => void {
  const duration = metrics.passDuration.cell(labels);
  const flushes = metrics.flushes.cell(labels);
  const events = metrics.events.cell(labels);
  return (pass) => {
    duration.observe(pass.durationMs / 1000);
    flushes.inc(pass.flushes);
    events.inc(pass.events);
  };
}
