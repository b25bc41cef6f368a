/**
 * Every write the crash load sent, per object, in the order it sent them (one write in flight
 * per object), with what came of it: acknowledged (2xx), refused (4xx: nothing was written),
 * or unknown (no answer, or 5xx: it may or may not have been committed).
 */
export type ObjectKind = 'policer' | 'configmap' | 'deployment';

type Outcome = 'acknowledged' | 'refused' | 'unknown';

interface Attempt {
  readonly serial: number;
  /** What the write leaves in the object, as `contentOf` reads it back (a marker or the replicas). */
  readonly content: string;
  outcome: Outcome | 'pending';
  /** The resourceVersion the API returned with the acknowledgement (the config API returns none). */
  revision?: number;
}

/** The state of one object as read back after the last crash. */
export interface FoundObject {
  readonly content: string;
  /** Its resourceVersion; undefined where the API does not return one. */
  readonly revision: number | undefined;
}

export interface ObjectVerdict {
  readonly acknowledged: number;
  /** Acknowledged writes whose content (or that of a later write) is what the object holds. */
  readonly found: number;
  /** One line per acknowledged write that is not there. */
  readonly lost: readonly string[];
}

/** Handle on one write in flight. */
export interface PendingWrite {
  acknowledged(revision: number | undefined): void;
  refused(): void;
  unknown(): void;
}

/**
 * Judges one object: an acknowledged write is found when the object exists, its revision is
 * not below the acknowledged one, and it holds the content of that write or of a later write
 * that was not refused (a later write may have committed without its answer reaching us).
 */
export function verifyObject(label: string, attempts: readonly Attempt[], found: FoundObject | undefined): ObjectVerdict {
  const acked = attempts.filter((a) => a.outcome === 'acknowledged');
  const lost: string[] = [];
  for (const write of acked) {
    const why = missing(write, attempts, found);
    if (why !== undefined) lost.push(`${label}: write #${write.serial} (${write.content}${write.revision === undefined ? '' : ` at ${write.revision}`}) ${why}`);
  }
  return { acknowledged: acked.length, found: acked.length - lost.length, lost };
}

function missing(write: Attempt, attempts: readonly Attempt[], found: FoundObject | undefined): string | undefined {
  if (found === undefined) return 'is gone: the object does not exist';
  if (write.revision !== undefined && found.revision !== undefined && found.revision < write.revision) {
    return `is gone: the object is at revision ${found.revision}`;
  }
  const candidates = attempts.filter((a) => a.serial >= write.serial && a.outcome !== 'refused');
  if (!candidates.some((a) => a.content === found.content)) return `is gone: the object holds ${found.content}`;
  return undefined;
}

interface Entry {
  readonly kind: ObjectKind;
  readonly name: string;
  readonly attempts: Attempt[];
  busy: boolean;
}

export class WriteLedger {
  private readonly byKind: Record<ObjectKind, Map<string, Entry>> = { policer: new Map(), configmap: new Map(), deployment: new Map() };
  private serial = 0;
  private readonly outcomes: Record<Outcome, number> = { acknowledged: 0, refused: 0, unknown: 0 };

  /**
   * Records a write about to be sent. Creates make the entry; later writes need the object
   * free (no write of it in flight): claim it with `claim` first.
   */
  begin(kind: ObjectKind, name: string, content: string): PendingWrite {
    let entry = this.byKind[kind].get(name);
    if (entry === undefined) {
      entry = { kind, name, attempts: [], busy: true };
      this.byKind[kind].set(name, entry);
    }
    const attempt: Attempt = { serial: ++this.serial, content, outcome: 'pending' };
    entry.attempts.push(attempt);
    const settle = (outcome: Outcome, revision?: number): void => {
      attempt.outcome = outcome;
      this.outcomes[outcome]++;
      if (revision !== undefined) attempt.revision = revision;
      entry.busy = false;
    };
    return { acknowledged: (revision) => settle('acknowledged', revision), refused: () => settle('refused'), unknown: () => settle('unknown') };
  }

  /**
   * An object of `kind` whose create was acknowledged and that has no write in flight, picked
   * with `pick` among them, and marked busy; undefined when there is none.
   */
  claim(kind: ObjectKind, pick: (count: number) => number): { name: string; last: string } | undefined {
    const free = [...this.byKind[kind].values()].filter((e) => !e.busy && e.attempts[0]?.outcome === 'acknowledged');
    const entry = free[pick(free.length)];
    if (entry === undefined) return undefined;
    entry.busy = true;
    const last = [...entry.attempts].reverse().find((a) => a.outcome === 'acknowledged');
    return { name: entry.name, last: last?.content ?? '' };
  }

  /** How many objects of `kind` were attempted (created or not). */
  count(kind: ObjectKind): number {
    return this.byKind[kind].size;
  }

  /** The objects with at least one acknowledged write, and everything written to them. */
  acknowledgedObjects(): Array<{ kind: ObjectKind; name: string; attempts: readonly Attempt[] }> {
    return Object.values(this.byKind).flatMap((entries) => [...entries.values()].filter((e) => e.attempts.some((a) => a.outcome === 'acknowledged')));
  }

  /** How many writes came to each outcome so far. */
  tally(): Readonly<Record<Outcome, number>> {
    return { ...this.outcomes };
  }
}
