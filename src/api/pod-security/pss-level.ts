/** A Pod Security Standards level. */
export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';

/** A level at a version of the standards: `latest`, or the minor version of Kubernetes 1.x whose checks apply. */
export interface LevelVersion {
  readonly level: PodSecurityLevel;
  /** undefined: `latest`. */
  readonly minor?: number;
}

/** The newest version of the checks this server knows: what `latest` evaluates (Kubernetes 1.36's). */
const LATEST_MINOR = 35;

export const LEVELS: readonly PodSecurityLevel[] = ['privileged', 'baseline', 'restricted'];

/** `baseline:latest`, `restricted:v1.24`. */
export function formatLevelVersion(lv: LevelVersion): string {
  return `${lv.level}:${lv.minor === undefined ? 'latest' : `v1.${lv.minor}`}`;
}

/** The minor version the checks are evaluated at: a version newer than the newest known (or `latest`) is the newest known. */
export function effectiveMinor(lv: LevelVersion): number {
  return lv.minor === undefined ? LATEST_MINOR : Math.min(lv.minor, LATEST_MINOR);
}

/** `latest` or `v1.N`; undefined for anything else. */
export function parseVersion(text: string): { readonly minor?: number } | undefined {
  if (text === 'latest') return {};
  const match = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(text);
  return match === null ? undefined : { minor: Number(match[1]) };
}

export function isLevel(text: string): text is PodSecurityLevel {
  return (LEVELS as readonly string[]).includes(text);
}

/** The stricter of two levels. */
export function stricter(a: PodSecurityLevel, b: PodSecurityLevel): PodSecurityLevel {
  return LEVELS.indexOf(a) >= LEVELS.indexOf(b) ? a : b;
}
