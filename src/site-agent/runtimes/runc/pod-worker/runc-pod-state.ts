import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { replaceFileAtomic } from '../../../../common/atomic-file.js';
import { SIDECAR_CONTAINER_NAME } from '../../../../api/sidecar-injection.js';
import type { PodRecord, RestartBackoff } from '../../kubelet/index.js';
import type { ContainerInstance } from '../containers/index.js';
import type { PodSandbox } from '../sandbox/index.js';

/**
 * What a pod's worker keeps of its pod: the status record, the sandbox, the running container
 * instances and their crash back-off, and the host folder of each volume once set up. All but
 * the volume folders are saved in the pod's folder, for the next agent to adopt.
 */
export interface RuncPodState {
  record: PodRecord;
  sandbox: PodSandbox | undefined;
  readonly instances: Map<string, ContainerInstance>;
  readonly backoff: Map<string, RestartBackoff>;
  readonly volumeDirs: Map<string, string>;
  /**
   * An app container of this pod (this uid) has started on this site: set at the first start,
   * saved, and carried over when the pod is made again after a machine restart (its saved state
   * read before its traces are removed), so the pod resumes without waiting for its sidecar's
   * identity (pod-actions.ts, sidecar-rules.ts).
   */
  workloadStarted: boolean;
}

/** The saved form of a {@link RuncPodState} (`pod-state.json`). */
export interface SavedPod {
  readonly record: PodRecord;
  readonly sandbox: PodSandbox;
  readonly instances: Readonly<Record<string, ContainerInstance>>;
  readonly backoff: Readonly<Record<string, RestartBackoff>>;
  /** {@link RuncPodState.workloadStarted} (absent in states saved before it existed: read from the record). */
  readonly workloadStarted?: boolean;
}

const STATE_FILE = 'pod-state.json';

/** What an earlier agent saved in the pod's folder, if anything readable. */
export async function readSavedPod(podDir: string): Promise<SavedPod | undefined> {
  const text = await readFile(join(podDir, STATE_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as SavedPod;
  } catch {
    return undefined;
  }
}

/**
 * Whether a saved pod's workload had started on this site: its flag, or — a state saved before
 * the flag existed — an app container that ran (started, restarted or ended). Pure.
 */
export function workloadRanBefore(saved: SavedPod): boolean {
  if (saved.workloadStarted !== undefined) return saved.workloadStarted;
  return saved.record.containers.some((c) => c.name !== SIDECAR_CONTAINER_NAME && (c.current.kind !== 'waiting' || c.restartCount > 0 || c.lastTermination !== undefined));
}

/** Saves a pod's state in its folder (replaced atomically, 0600), when it changed since the last save. */
export class PodStateFile {
  private last = '';

  constructor(private readonly podDir: string) {}

  async save(state: RuncPodState): Promise<void> {
    if (state.sandbox === undefined) return;
    const saved: SavedPod = {
      record: state.record,
      sandbox: state.sandbox,
      instances: Object.fromEntries(state.instances),
      backoff: Object.fromEntries(state.backoff),
      workloadStarted: state.workloadStarted,
    };
    const text = JSON.stringify(saved);
    if (text === this.last) return;
    this.last = text;
    await replaceFileAtomic(join(this.podDir, STATE_FILE), text, 0o600);
  }
}
