import type { Timers } from '../../../../common/timers.js';
import type { ClusterRef } from '../../../../site-api/site-api-types.js';
import type { PodRuntimeSink } from '../../../pod-runtime.js';
import { conditionStatusOf, podReady, renderPodStatus, ReportedStatuses, type PodRecord } from '../../kubelet/index.js';

/**
 * kubelet's status manager for one pod: renders the record's PodStatus and sends it when it
 * changed; moves the Ready conditions' transition time when readiness flips; sends it again
 * when the control plane's copy differs from it in what the site owns ({@link reconcile}).
 */
export class StatusReporter {
  private last = '';
  private readonly reported = new ReportedStatuses();
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
    this.reported.note(status);
    const { key, cluster, name, uid } = this.ref;
    this.sink.status(key, { cluster, name, uid, status });
  }

  /**
   * The control plane's copy of the pod arrived (the pod watch): when its status differs from
   * the ones last reported in what the site owns (a lease expiry marked it not Ready, a report
   * was lost), the record's status is sent again — kubelet's status manager's reconcile (a
   * copy matching one of the few reports just before is an echo on its way, not drift). When
   * the copy's readiness differs, the Ready conditions' transition time moves to now: in the
   * control plane's eyes it flips back. True when sent.
   */
  reconcile(record: PodRecord, serverStatus: Record<string, unknown> | undefined): boolean {
    if (!this.reported.drifted(serverStatus)) return false;
    if (conditionStatusOf(this.reported.newest, 'Ready') !== conditionStatusOf(serverStatus, 'Ready')) record.readyChangedAt = this.timers.now();
    this.report(record, true);
    return true;
  }
}
