import { BASELINE_CHECKS, type PodSecurityCheck } from './pss-baseline-checks.js';
import { effectiveMinor, type LevelVersion } from './pss-level.js';
import type { CheckResult, PodSecurityView } from './pss-pod.js';
import { RESTRICTED_CHECKS } from './pss-restricted-checks.js';

/** The checks of a level at a version, in the order kube reports them: baseline's, then restricted's own. */
function checksOf(lv: LevelVersion): PodSecurityCheck[] {
  if (lv.level === 'privileged') return [];
  const minor = effectiveMinor(lv);
  const baseline = BASELINE_CHECKS.filter((c) => c.since <= minor);
  if (lv.level === 'baseline') return baseline;
  const restricted = RESTRICTED_CHECKS.filter((c) => c.since <= minor);
  const overridden = new Set(restricted.flatMap((c) => (c.overrides !== undefined && c.overrides.since <= minor ? [c.overrides.id] : [])));
  return [...baseline.filter((c) => !overridden.has(c.id)), ...restricted];
}

/** What a pod (or pod template) does that `lv` forbids, in kube's order; empty when it is allowed. Pure. */
export function evaluatePodSecurity(lv: LevelVersion, pod: PodSecurityView): CheckResult[] {
  const minor = effectiveMinor(lv);
  return checksOf(lv).flatMap((c) => {
    const result = c.check(pod, minor);
    return result === undefined ? [] : [result];
  });
}

/** kube's ForbiddenDetail: `reason (detail), reason (detail)`. */
export function forbiddenDetail(results: readonly CheckResult[]): string {
  return results.map((r) => (r.detail === '' ? r.reason : `${r.reason} (${r.detail})`)).join(', ');
}

/** kube's ForbiddenReason: the reasons alone, joined. */
export function forbiddenReason(results: readonly CheckResult[]): string {
  return results.map((r) => r.reason || 'unknown forbidden reason').join(', ');
}
