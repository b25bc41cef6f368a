import type { CallsInWindow, FailedCall } from './client-pod.js';
import type { CensusChange } from './observations.js';

/** Goal: the pods Ready again in `kubectl get pods` within this many seconds of the link or control plane coming back. */
const READY_GOAL_SECONDS = 5;

/** One fault's figures. */
export interface FaultRow {
  readonly name: string;
  readonly outage: string;
  readonly startedAt: number;
  readonly restoredAt: number;
  /** The fault stops the site's data plane: failures within the Ready goal after the restore are expected, not counted. */
  readonly stopsDataPlane: boolean;
  readonly calls: CallsInWindow;
  /** Seconds until the pods were Ready for good after the restore; undefined when not by the end of the watch. */
  readonly readyAfter: number | undefined;
  readonly observedSeconds: number;
  /** Seconds the pods showed not Ready from the fault's start to the end of its watch. */
  readonly notReadySeconds: number;
  readonly change: CensusChange | undefined;
  readonly notes: readonly string[];
  /** The fault could not be carried out (an error of the harness or of the platform). */
  readonly error?: string;
}

const time = (t: number): string => new Date(t).toISOString().slice(11, 23);

/** The failed calls grouped by target and error, each with its count and first and last time. */
function groups(failed: readonly FailedCall[]): string[] {
  const by = new Map<string, FailedCall[]>();
  for (const call of failed) {
    const key = `${call.target}: ${call.error}`;
    by.set(key, [...(by.get(key) ?? []), call]);
  }
  return [...by].map(([key, calls]) => `${key} ×${calls.length} (${time(calls[0]?.t ?? 0)}–${time(calls.at(-1)?.t ?? 0)})`);
}

/** The failed calls that count against the goal of 0 (see {@link FaultRow.stopsDataPlane}). */
function counted(row: FaultRow): readonly FailedCall[] {
  return row.stopsDataPlane ? row.calls.failed.filter((call) => call.t >= row.restoredAt + READY_GOAL_SECONDS * 1000) : row.calls.failed;
}

/** What missed its goal, one line each (empty when every goal held). */
export function missedGoals(row: FaultRow): string[] {
  const missed: string[] = [];
  if (row.error !== undefined) missed.push(`${row.name}: could not be carried out: ${row.error}`);
  const { silences } = row.calls;
  const failed = counted(row);
  if (failed.length > 0) {
    const which = row.stopsDataPlane ? ` later than ${READY_GOAL_SECONDS} s after the restart` : '';
    missed.push(`${row.name}: ${failed.length} failed calls${which} from ${time(failed[0]?.t ?? 0)} to ${time(failed.at(-1)?.t ?? 0)} UTC: ${groups(failed).join('; ')}`);
  }
  for (const silence of silences) missed.push(`${row.name}: the client pod logged nothing from ${time(silence.from)} to ${time(silence.to)} UTC`);
  if (row.readyAfter === undefined) missed.push(`${row.name}: the pods were not all Ready ${row.observedSeconds.toFixed(0)} s after the restore`);
  else if (row.readyAfter > READY_GOAL_SECONDS) missed.push(`${row.name}: the pods were Ready again only ${row.readyAfter.toFixed(1)} s after the restore (goal ≤ ${READY_GOAL_SECONDS} s)`);
  if (row.change === undefined) missed.push(`${row.name}: the pods could not be counted after it`);
  else {
    if (row.change.restarts > 0 || row.change.newPids > 0) missed.push(`${row.name}: ${row.change.restarts} container restarts in the API, ${row.change.newPids} containers with a new pid`);
    if (row.change.moved > 0) missed.push(`${row.name}: ${row.change.moved} pods recreated or moved (new uids)`);
  }
  return missed;
}

function cell(row: FaultRow): string[] {
  const { failed, succeeded, silences } = row.calls;
  const failing = failed.length === 0 ? '–' : `${((( failed.at(-1)?.t ?? 0) - (failed[0]?.t ?? 0)) / 1000).toFixed(1)} s`;
  const ready = row.readyAfter === undefined ? `**not Ready after ${row.observedSeconds.toFixed(0)} s**` : row.readyAfter > READY_GOAL_SECONDS ? `**${row.readyAfter.toFixed(1)} s**` : `${row.readyAfter.toFixed(1)} s`;
  const restarted = row.change === undefined ? '?' : `${row.change.restarts} / ${row.change.newPids}`;
  const moved = row.change === undefined ? '?' : String(row.change.moved);
  const late = counted(row).length;
  const expected = row.stopsDataPlane ? ` (${failed.length - late} while its data plane was down, within ${READY_GOAL_SECONDS} s of the restart)` : '';
  const failedCell = late === 0 && silences.length === 0 ? `${late}${expected}` : `**${late}**${expected}${silences.length === 0 ? '' : ' (client silent)'}`;
  return [row.name, row.outage, String(succeeded + failed.length), failedCell, failing, ready, `${row.notReadySeconds.toFixed(1)} s`, restarted, moved, missedGoals(row).length === 0 ? 'ok' : '**missed**'];
}

export function renderRows(rows: readonly FaultRow[]): string[] {
  const lines = [
    '| fault | outage | calls | failed (goal 0) | first to last failure | Ready again after restore (goal ≤ 5 s) | pods shown not Ready | restarts: API / new container pids (goal 0) | pods moved (goal 0) | result |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((row) => `| ${cell(row).join(' | ')} |`),
  ];
  const notes = rows.flatMap((row) => row.notes.map((note) => `- ${row.name}: ${note}`));
  const failures = rows.flatMap((row) => (row.calls.failed.length === 0 ? [] : [`- ${row.name} (from ${time(row.startedAt)} UTC): ${groups(row.calls.failed).join('; ')}`]));
  if (notes.length > 0) lines.push('', ...notes);
  if (failures.length > 0) lines.push('', 'Failed calls by target and error (count, first and last time, UTC):', '', ...failures);
  return lines;
}
