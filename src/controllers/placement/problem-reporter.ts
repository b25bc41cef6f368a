import type { KubeObject } from '../../apimachinery/object.js';

/**
 * Decides which problem messages about an object are new: each message is reported once
 * per object (uid) and generation. Objects are remembered least-recently-used first out,
 * up to `capacity`; an object forgotten may have a message reported again.
 */
export class ProblemReporter {
  private readonly seen = new Map<string, { readonly generation: string; readonly messages: Set<string> }>();

  constructor(private readonly capacity: number) {}

  /** The messages of `problems` not reported yet for this object's generation; remembers them as reported. */
  fresh(object: KubeObject, problems: readonly string[]): string[] {
    const uid = object.metadata.uid;
    if (uid === undefined || uid === '') return [];
    const generation = String(object.metadata.generation ?? '');
    let record = this.seen.get(uid);
    if (record === undefined || record.generation !== generation) record = { generation, messages: new Set() };
    this.seen.delete(uid);
    this.seen.set(uid, record);
    while (this.seen.size > this.capacity) {
      const oldest = this.seen.keys().next().value;
      if (oldest === undefined) break;
      this.seen.delete(oldest);
    }
    const fresh = problems.filter((m) => !record.messages.has(m));
    for (const m of fresh) record.messages.add(m);
    return fresh;
  }
}
