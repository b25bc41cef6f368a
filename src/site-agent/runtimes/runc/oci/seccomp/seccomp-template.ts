import type { OciSeccomp, OciSyscallRule } from '../oci-types.js';

/** When a template's rule applies: every capability in the container's bounding set, the machine's architecture among these, a kernel at least this. */
interface SeccompCondition {
  readonly caps?: readonly string[];
  readonly arches?: readonly string[];
  readonly minKernel?: string;
}

interface SeccompTemplateRule extends OciSyscallRule {
  /** The rule is kept only when all of these hold. */
  readonly includes?: SeccompCondition;
  /** The rule is dropped when any of these holds. */
  readonly excludes?: SeccompCondition;
}

/**
 * A seccomp profile as Docker and containerd write them (and kubelet's Localhost profiles
 * are): the OCI fields, plus an architecture map and rules that depend on the container's
 * capabilities, the machine's architecture and its kernel. {@link resolveSeccomp} turns it
 * into the OCI `linux.seccomp` of one container.
 */
export interface SeccompTemplate {
  readonly defaultAction: string;
  readonly defaultErrnoRet?: number;
  readonly architectures?: readonly string[];
  readonly archMap?: readonly { readonly architecture: string; readonly subArchitectures?: readonly string[] | null }[];
  readonly flags?: readonly string[];
  readonly syscalls?: readonly SeccompTemplateRule[];
}

/** What a profile's conditions are read against on this machine. */
export interface SeccompHost {
  /** Go's names, as profiles use them: `amd64`, `arm64`, `x86`, … */
  readonly arch: string;
  /** The running kernel's release (`uname -r`). */
  readonly kernel: string;
}

/** A Localhost profile that is not a seccomp profile. */
export class SeccompProfileError extends Error {
  override readonly name = 'SeccompProfileError';
}

/** libseccomp's name of Go's architectures (the archMap's keys). */
const SCMP_ARCH: Readonly<Record<string, string>> = {
  amd64: 'SCMP_ARCH_X86_64',
  x86: 'SCMP_ARCH_X86',
  arm64: 'SCMP_ARCH_AARCH64',
  arm: 'SCMP_ARCH_ARM',
  s390x: 'SCMP_ARCH_S390X',
  ppc64le: 'SCMP_ARCH_PPC64LE',
  riscv64: 'SCMP_ARCH_RISCV64',
  loong64: 'SCMP_ARCH_LOONGARCH64',
};

/** Node's `process.arch` as Go names it. */
export function goArch(nodeArch: string): string {
  return ({ x64: 'amd64', ia32: 'x86', arm64: 'arm64', arm: 'arm', s390x: 's390x', ppc64: 'ppc64le', riscv64: 'riscv64', loong64: 'loong64' } as Record<string, string>)[nodeArch] ?? nodeArch;
}

/** Major and minor of a kernel release (`6.18.44-fc` → [6, 18]); a version moby's way reads the same. */
function kernelVersion(release: string): readonly [number, number] {
  const match = /^(\d+)\.(\d+)/.exec(release);
  return match === null ? [0, 0] : [Number(match[1]), Number(match[2])];
}

function atLeast(kernel: string, wanted: string): boolean {
  const [major, minor] = kernelVersion(kernel);
  const [wantMajor, wantMinor] = kernelVersion(wanted);
  return major !== wantMajor ? major > wantMajor : minor >= wantMinor;
}

function includes(condition: SeccompCondition | undefined, host: SeccompHost, bounding: ReadonlySet<string>): boolean {
  if (condition === undefined) return true;
  if (condition.arches !== undefined && condition.arches.length > 0 && !condition.arches.includes(host.arch)) return false;
  if ((condition.caps ?? []).some((cap) => !bounding.has(cap))) return false;
  return condition.minKernel === undefined || atLeast(host.kernel, condition.minKernel);
}

function excludes(condition: SeccompCondition | undefined, host: SeccompHost, bounding: ReadonlySet<string>): boolean {
  if (condition === undefined) return false;
  if ((condition.arches ?? []).includes(host.arch)) return true;
  if ((condition.caps ?? []).some((cap) => bounding.has(cap))) return true;
  return condition.minKernel !== undefined && atLeast(host.kernel, condition.minKernel);
}

/**
 * The OCI seccomp of a container whose bounding set is `bounding`, from a template, as
 * Docker and containerd resolve it: the architecture map's entry for this machine (the
 * architecture and the ones it also runs), then each rule unless its `excludes` holds (any
 * of its capabilities in the bounding set, this architecture, a kernel at least its
 * minimum) and only if its `includes` holds (all of its capabilities, this architecture, a
 * kernel at least its minimum). Pure.
 */
export function resolveSeccomp(template: SeccompTemplate, host: SeccompHost, bounding: readonly string[]): OciSeccomp {
  const caps = new Set(bounding);
  const native = SCMP_ARCH[host.arch];
  const mapped = template.archMap?.find((entry) => entry.architecture === native);
  const architectures = template.architectures ?? (mapped === undefined ? [] : [mapped.architecture, ...(mapped.subArchitectures ?? [])]);
  const syscalls = (template.syscalls ?? [])
    .filter((rule) => !excludes(rule.excludes, host, caps) && includes(rule.includes, host, caps))
    .map(({ names, action, errnoRet, args }) => ({ names, action, ...(errnoRet === undefined ? {} : { errnoRet }), ...(args === undefined ? {} : { args }) }));
  return {
    defaultAction: template.defaultAction,
    ...(template.defaultErrnoRet === undefined ? {} : { defaultErrnoRet: template.defaultErrnoRet }),
    ...(architectures.length === 0 ? {} : { architectures }),
    ...(template.flags === undefined ? {} : { flags: template.flags }),
    syscalls,
  };
}

const ACTIONS = new Set(['SCMP_ACT_KILL', 'SCMP_ACT_KILL_PROCESS', 'SCMP_ACT_KILL_THREAD', 'SCMP_ACT_TRAP', 'SCMP_ACT_ERRNO', 'SCMP_ACT_TRACE', 'SCMP_ACT_ALLOW', 'SCMP_ACT_LOG']);
const OPS = new Set(['SCMP_CMP_NE', 'SCMP_CMP_LT', 'SCMP_CMP_LE', 'SCMP_CMP_EQ', 'SCMP_CMP_GE', 'SCMP_CMP_GT', 'SCMP_CMP_MASKED_EQ']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

function checkRule(rule: unknown, index: number): void {
  const where = `syscalls[${index}]`;
  if (!isObject(rule)) throw new SeccompProfileError(`${where} is not an object`);
  const names = rule['names'] ?? (typeof rule['name'] === 'string' ? [rule['name']] : undefined);
  if (!isStrings(names) || names.length === 0) throw new SeccompProfileError(`${where}.names must list at least one system call`);
  if (typeof rule['action'] !== 'string' || !ACTIONS.has(rule['action'])) throw new SeccompProfileError(`${where}.action "${String(rule['action'])}" is not a seccomp action`);
  const args = rule['args'] ?? [];
  if (!Array.isArray(args)) throw new SeccompProfileError(`${where}.args must be a list`);
  for (const arg of args) {
    if (!isObject(arg) || typeof arg['index'] !== 'number' || typeof arg['value'] !== 'number' || typeof arg['op'] !== 'string' || !OPS.has(arg['op'])) {
      throw new SeccompProfileError(`${where}.args: each needs a numeric index and value and an op among ${[...OPS].join(', ')}`);
    }
  }
}

/**
 * A Localhost profile's text as a template: JSON with a `defaultAction` among the seccomp
 * actions and rules that each name system calls, an action and well-formed arguments (a
 * notifying action is refused: no agent listens). Throws {@link SeccompProfileError}. Pure.
 */
export function parseSeccompTemplate(text: string): SeccompTemplate {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SeccompProfileError(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(parsed)) throw new SeccompProfileError('a seccomp profile is a JSON object');
  if (typeof parsed['defaultAction'] !== 'string' || !ACTIONS.has(parsed['defaultAction'])) {
    throw new SeccompProfileError(`defaultAction "${String(parsed['defaultAction'])}" is not a seccomp action`);
  }
  const syscalls = parsed['syscalls'] ?? [];
  if (!Array.isArray(syscalls)) throw new SeccompProfileError('syscalls must be a list');
  syscalls.forEach(checkRule);
  const rules = syscalls.map((rule: Record<string, unknown>) => (rule['names'] === undefined ? { ...rule, names: [rule['name']] } : rule));
  return { ...(parsed as unknown as SeccompTemplate), syscalls: rules as unknown as SeccompTemplateRule[] };
}
