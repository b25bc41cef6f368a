import type { PodRef } from '../../../site-api/site-api-types.js';
import type { PodRuntimeSink } from '../../pod-runtime.js';

type EventType = 'Normal' | 'Warning';

/**
 * What an Event recorded once per condition is about: a condition of the pod (its sandbox,
 * volumes, identity files, sidecar, fields the site ignores), or one of its containers (or the image it runs on).
 */
export type EventSubject =
  | { readonly pod: 'sandbox' | 'volumes' | 'identity' | 'sidecar' | 'spec' }
  | { readonly container: string; readonly aspect?: 'image' };

const keyOf = (subject: EventSubject): string => ('pod' in subject ? `pod/${subject.pod}` : `container/${subject.container}/${subject.aspect ?? ''}`);

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

  /** Records it once per condition: again only after `subject` reported something else (a state entered, not each sync in it). */
  once(subject: EventSubject, type: EventType, reason: string, message: string): void {
    const key = keyOf(subject);
    const text = `${reason}\0${message}`;
    if (this.announced.get(key) === text) return;
    this.announced.set(key, text);
    this.record(type, reason, message);
  }

  /** The condition of `subject` ended: the next `once` for it is recorded. */
  forget(subject: EventSubject): void {
    this.announced.delete(keyOf(subject));
  }
}
