import type { Timers } from '../../../../common/timers.js';
import type { ClusterRef } from '../../../../site-api/site-api-types.js';
import type { PodRuntimeSink } from '../../../pod-runtime.js';
import { podReady, renderPodStatus, type PodRecord } from '../../kubelet/index.js';

/**
 * kubelet's status manager for one pod: renders the record's PodStatus and sends it when it
 * changed; moves the Ready conditions' transition time when readiness flips.
 */
export class StatusReporter {
  private last = '';
  private lastReady = false;

  constructor(
    private readonly sink: PodRuntimeSink,
    private readonly ref: { readonly key: string; readonly cluster: ClusterRef; readonly name: string; readonly uid: string },
    private readonly timers: Timers,
  ) {}

  /** The record was restored (an adopted pod): its readiness is the one already reported. */
  restored(record: PodRecord): void {
    this.lastReady = podReady(record);
  }

  /** Sends the pod's status when it changed (always when `force`). */
  report(record: PodRecord, force = false): void {
    const now = this.timers.now();
    const ready = podReady(record);
    if (ready !== this.lastReady) {
      record.readyChangedAt = now;
      this.lastReady = ready;
    }
    const status = renderPodStatus(record, now);
    const text = JSON.stringify(status);
    if (!force && text === this.last) return;
    this.last = text;
    const { key, cluster, name, uid } = this.ref;
    this.sink.status(key, { cluster, name, uid, status });
  }
}
