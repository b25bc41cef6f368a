import { dns1123LabelProblems, labelValueProblems, qualifiedNameProblems } from '../apimachinery/validation/names.js';
import type { SiteRuntime, SiteType } from '../site-api/site-model.js';
import type { RegisterSite } from '../site-api/site-api-types.js';

/** The shape of the site(s) one agent registers (from `edgeplane site` flags). */
export interface SiteShape {
  readonly name: string;
  readonly type: SiteType;
  readonly labels: Readonly<Record<string, string>>;
  readonly nodes: number;
  readonly cpu: string;
  readonly memory: string;
  readonly quota?: { readonly cpu: string; readonly memory: string };
  /** Register this many sites `<name>-<i>` (i zero-padded, from 0) instead of one site `<name>`. */
  readonly simulateSites?: number;
}

/** `node-0` … `node-<n-1>`: the site-local node names (the platform's Node objects are `<site>-<node>`). */
function nodeNameOf(index: number): string {
  return `node-${index}`;
}

/** The name of simulated site `index` of `count`: `<base>-<index>` zero-padded to the width of `count - 1`. */
export function simulatedSiteName(base: string, index: number, count: number): string {
  return `${base}-${String(index).padStart(String(Math.max(count - 1, 0)).length, '0')}`;
}

/** The registration entries for a shape: one site, or `simulateSites` alike sites. Pure. */
export function siteSpecsFor(shape: SiteShape): RegisterSite[] {
  const nodes = Array.from({ length: shape.nodes }, (_, i) => ({ name: nodeNameOf(i), cpu: shape.cpu, memory: shape.memory }));
  const one = (name: string): RegisterSite => ({ name, type: shape.type, labels: shape.labels, nodes, ...(shape.quota === undefined ? {} : { quota: shape.quota }) });
  if (shape.simulateSites === undefined) return [one(shape.name)];
  return Array.from({ length: shape.simulateSites }, (_, i) => one(simulatedSiteName(shape.name, i, shape.simulateSites ?? 0)));
}

/** The runtime an agent registers its sites with, and (runc) the runtime's version. */
export interface RegisteredRuntime {
  readonly runtime: SiteRuntime;
  readonly version?: string;
}

/**
 * Pure: the sites as registered with `runtime`. A simulated site says nothing (the platform's
 * default), so agents that ran before sites declared a runtime register exactly as they did
 * and keep their stored credential; a runc site carries `runtime` and its version.
 */
export function sitesWithRuntime(sites: readonly RegisterSite[], runtime: RegisteredRuntime): RegisterSite[] {
  return sites.map(({ runtime: _runtime, runtimeVersion: _version, ...site }) =>
    runtime.runtime === 'simulated' ? site : { ...site, runtime: runtime.runtime, ...(runtime.version === undefined ? {} : { runtimeVersion: runtime.version }) },
  );
}

/** Throws unless `name` can name a site (a DNS-1123 label: it becomes part of Node names). */
export function checkSiteName(name: string): void {
  const problems = dns1123LabelProblems(name);
  if (problems.length > 0) throw new Error(`site name "${name}" is invalid: ${problems.join('; ')}`);
}

/** Parses `k=v,k2=v2` (spaces after commas tolerated) into labels, checking keys and values as Kubernetes does. */
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`label "${part}" is not key=value`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    const problems = [...qualifiedNameProblems(key).map((p) => `key: ${p}`), ...labelValueProblems(value).map((p) => `value: ${p}`)];
    if (problems.length > 0) throw new Error(`label "${part}" is invalid: ${problems.join('; ')}`);
    labels[key] = value;
  }
  return labels;
}
