import { isLevel, LEVELS, parseVersion, stricter, type LevelVersion, type PodSecurityLevel } from './pss-level.js';

/** A namespace's Pod Security policy: what is enforced, audited and warned about. */
export interface NamespacePolicy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

/** A label value the admission cannot use (kube's field error under `metadata.labels[…]`). */
export interface PolicyLabelProblem {
  readonly label: string;
  readonly value: string;
  readonly message: string;
}

const POD_SECURITY_LABEL_PREFIX = 'pod-security.kubernetes.io/';
type Mode = 'enforce' | 'audit' | 'warn';

/**
 * The policy the `pod-security.kubernetes.io/{enforce,audit,warn}[-version]` labels give, with
 * kube's fallbacks for values it cannot read — an enforce level falls back to restricted (fail
 * closed), audit and warn to privileged, a version to latest — and the problems to report.
 * A missing label is privileged:latest; a `warn` label that is absent follows `enforce`. Pure.
 */
export function namespacePolicy(
  labels: Readonly<Record<string, string>>,
): { readonly policy: NamespacePolicy; readonly problems: readonly PolicyLabelProblem[] } {
  const problems: PolicyLabelProblem[] = [];
  const read = (mode: Mode): LevelVersion => {
    const levelLabel = `${POD_SECURITY_LABEL_PREFIX}${mode}`;
    const versionLabel = `${levelLabel}-version`;
    const levelText = labels[levelLabel];
    const versionText = labels[versionLabel];
    let level: PodSecurityLevel = 'privileged';
    if (levelText !== undefined) {
      if (isLevel(levelText)) level = levelText;
      else {
        problems.push({ label: levelLabel, value: levelText, message: `must be one of ${LEVELS.join(', ')}` });
        level = mode === 'enforce' ? 'restricted' : 'privileged';
      }
    }
    let minor: number | undefined;
    if (versionText !== undefined) {
      const version = parseVersion(versionText);
      if (version === undefined) problems.push({ label: versionLabel, value: versionText, message: 'must be "latest" or "v1.x"' });
      else minor = version.minor;
    }
    return minor === undefined ? { level } : { level, minor };
  };
  const enforce = read('enforce');
  const audit = read('audit');
  let warn = read('warn');
  const warnGiven = labels[`${POD_SECURITY_LABEL_PREFIX}warn`] !== undefined;
  if (!warnGiven && stricter(enforce.level, warn.level) === enforce.level && enforce.level !== warn.level) {
    const versionGiven = labels[`${POD_SECURITY_LABEL_PREFIX}warn-version`] !== undefined;
    warn = versionGiven ? { ...warn, level: enforce.level } : enforce;
  }
  return { policy: { enforce, audit, warn }, problems };
}

/** The policy with a floor: no mode is below `floor` (the platform's rule for a virtual cluster). */
export function withFloor(policy: NamespacePolicy, floor: PodSecurityLevel): NamespacePolicy {
  const raise = (lv: LevelVersion): LevelVersion => (stricter(lv.level, floor) === lv.level ? lv : { ...lv, level: floor });
  return { enforce: raise(policy.enforce), audit: policy.audit, warn: policy.warn };
}
