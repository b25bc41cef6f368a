import type { PodRef } from '../../../../site-api/site-api-types.js';
import type { PodRuntimeSink } from '../../../pod-runtime.js';

type EventType = 'Normal' | 'Warning';

/** A pod's Events as kubelet records them (source `kubelet`), some once per condition entered. */
export class PodEvents {
  /** The last Event of each condition (see once). */
  private readonly announced = new Map<string, string>();

  constructor(
    private readonly sink: PodRuntimeSink,
    private readonly pod: PodRef,
  ) {}

  record(type: EventType, reason: string, message: string): void {
    this.sink.event?.({ ...this.pod, type, reason, message });
  }

  /** Records it once per condition: again only after `key` reported something else (a state entered, not each sync in it). */
  once(key: string, type: EventType, reason: string, message: string): void {
    const text = `${reason}\0${message}`;
    if (this.announced.get(key) === text) return;
    this.announced.set(key, text);
    this.record(type, reason, message);
  }

  /** The condition of `key` ended: the next `once` for it is recorded. */
  forget(key: string): void {
    this.announced.delete(key);
  }
}
