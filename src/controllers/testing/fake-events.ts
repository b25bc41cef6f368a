import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { EventRecorder } from '../events/event-recorder.js';

/** An event the fake recorder kept. */
export interface RecordedEvent {
  /** `Kind/name` of the object the event is about. */
  readonly object: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  /** `source.host`, when the recorder was given one. */
  readonly host?: string;
}

/** An event recorder that keeps every event, in order. */
export class FakeEvents implements EventRecorder {
  readonly recorded: RecordedEvent[] = [];

  record(_cluster: ClusterRef, object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, _component?: string, host?: string): void {
    this.recorded.push({ object: `${object.kind}/${object.metadata.name ?? ''}`, type, reason, message, ...(host === undefined ? {} : { host }) });
  }

  /** The reasons recorded (about `object`, `Kind/name`, when given). */
  reasons(object?: string): string[] {
    return this.recorded.filter((e) => object === undefined || e.object === object).map((e) => e.reason);
  }
}
