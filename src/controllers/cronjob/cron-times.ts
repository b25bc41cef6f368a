import { CronExpressionParser } from 'cron-parser';
import type { CronSchedule } from '../../vk8s/kinds/workload-cron-schedule.js';

/**
 * The first run time of `schedule` strictly after `after`. Five-field schedules are
 * evaluated by cron-parser in UTC (kube evaluates them in kube-controller-manager's local
 * time zone; the platform's control plane runs in UTC); `@every d` is robfig's constant
 * delay: the next whole second of `after` plus `d`.
 */
export function nextRunAfter(schedule: CronSchedule, after: Date): Date {
  switch (schedule.kind) {
    case 'cron':
      return CronExpressionParser.parse(schedule.expression, { currentDate: after, tz: 'UTC' }).next().toDate();
    case 'every':
      return new Date(Math.floor(after.getTime() / 1000) * 1000 + schedule.seconds * 1000);
  }
}

/** The last run time of `schedule` in (after, upTo], if any (without walking every run in between). */
export function lastRunIn(schedule: CronSchedule, after: Date, upTo: Date): Date | undefined {
  if (upTo.getTime() <= after.getTime()) return undefined;
  let last: Date;
  switch (schedule.kind) {
    case 'cron':
      last = CronExpressionParser.parse(schedule.expression, { currentDate: new Date(upTo.getTime() + 1), tz: 'UTC' }).prev().toDate();
      break;
    case 'every': {
      const base = Math.floor(after.getTime() / 1000) * 1000;
      const step = schedule.seconds * 1000;
      last = new Date(base + Math.floor((upTo.getTime() - base) / step) * step);
      break;
    }
  }
  return last.getTime() > after.getTime() ? last : undefined;
}

/** More missed start times than this and kube refuses to guess which to run. */
const MAX_MISSED_START_TIMES = 100;

export interface UnmetScheduleInput {
  readonly schedule: CronSchedule;
  /** status.lastScheduleTime, else the CronJob's creationTimestamp. */
  readonly earliest: Date;
  readonly now: Date;
  readonly startingDeadlineSeconds?: number;
}

export type UnmetSchedule =
  /** The run times due and not yet started: how many, and the most recent one (the only one started). */
  | { readonly kind: 'due'; readonly count: number; readonly latest?: Date }
  | { readonly kind: 'tooMany' };

/**
 * kube's getRecentUnmetScheduleTimes: the run times in (earliest, now], where earliest moves
 * up to `now - startingDeadlineSeconds` when that is later. Over 100 of them is an error
 * (a clock or controller problem), reported instead of starting anything.
 */
export function unmetScheduleTimes(input: UnmetScheduleInput): UnmetSchedule {
  let earliest = input.earliest.getTime();
  if (input.startingDeadlineSeconds !== undefined) earliest = Math.max(earliest, input.now.getTime() - input.startingDeadlineSeconds * 1000);
  const now = input.now.getTime();
  if (earliest > now) return { kind: 'due', count: 0 };
  let count = 0;
  let latest: Date | undefined;
  for (let t = nextRunAfter(input.schedule, new Date(earliest)); t.getTime() <= now; t = nextRunAfter(input.schedule, t)) {
    latest = t;
    if (++count > MAX_MISSED_START_TIMES) return { kind: 'tooMany' };
  }
  return latest === undefined ? { kind: 'due', count: 0 } : { kind: 'due', count, latest };
}

/** kube's Job name for a run: `<cronjob>-<scheduled time in minutes since the epoch>`. */
export function jobNameFor(cronJob: string, scheduled: Date): string {
  return `${cronJob}-${Math.floor(scheduled.getTime() / 60_000)}`;
}

/** Go's time.RFC1123Z (`Mon, 02 Jan 2006 15:04:05 -0700`) in UTC, as kube's MissSchedule message prints it. */
export function rfc1123z(date: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${days[date.getUTCDay()]}, ${two(date.getUTCDate())} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}
