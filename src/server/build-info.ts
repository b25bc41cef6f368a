import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';

export interface BuildInfo {
  readonly version: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
}

/** What `npm run build` recorded in dist/build-info.json (or "unknown" when it is missing). */
export function readBuildInfo(): BuildInfo {
  try {
    const raw = readFileSync(new URL('../../build-info.json', import.meta.url), 'utf8');
    return JSON.parse(raw) as BuildInfo;
  } catch {
    return { version: '0.0.0', gitCommit: 'unknown', gitTreeState: 'unknown', buildDate: 'unknown' };
  }
}

/** `/version` in the shape of Kubernetes' version.Info, with Node's version in place of Go's. */
export function versionDocument(build: BuildInfo): Record<string, string> {
  const [major = '0', minor = '0'] = build.version.split('.');
  const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386' };
  return {
    major,
    minor,
    gitVersion: `v${build.version}`,
    gitCommit: build.gitCommit,
    gitTreeState: build.gitTreeState,
    buildDate: build.buildDate,
    nodeVersion: process.version,
    compiler: 'tsc',
    platform: `${platform()}/${goArch[arch()] ?? arch()}`,
  };
}
