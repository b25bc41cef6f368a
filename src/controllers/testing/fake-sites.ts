import type { KubeObject } from '../../apimachinery/object.js';
import { POD_SITE_LABEL, type SiteRuntime } from '../../site-api/site-model.js';
import type { SiteInventory, SiteState } from '../placement/site-inventory.js';

/** A site inventory whose nodes, quotas and runtimes the test sets; a site with nodes is ONLINE. */
export class FakeSites implements SiteInventory {
  private readonly nodes = new Map<string, KubeObject[]>();
  private readonly quotas = new Map<string, { cpuMillis: number; memoryBytes: number }>();
  private readonly runtimes = new Map<string, SiteRuntime>();
  private readonly handlers: Array<(site: string) => void> = [];

  setNodes(site: string, nodes: KubeObject[]): void {
    this.nodes.set(site, nodes);
    for (const handler of this.handlers) handler(site);
  }

  setQuota(site: string, quota: { cpuMillis: number; memoryBytes: number }): void {
    this.quotas.set(site, quota);
    for (const handler of this.handlers) handler(site);
  }

  setRuntime(site: string, runtime: SiteRuntime): void {
    this.runtimes.set(site, runtime);
    for (const handler of this.handlers) handler(site);
  }

  nodesOf(site: string): readonly KubeObject[] {
    return this.nodes.get(site) ?? [];
  }

  stateOf(site: string): SiteState | undefined {
    return this.nodes.has(site) ? 'ONLINE' : undefined;
  }

  quotaOf(site: string): { readonly cpuMillis: number; readonly memoryBytes: number } | undefined {
    return this.quotas.get(site);
  }

  /** A site with nodes is simulated unless told. */
  runtimeOf(site: string): SiteRuntime | undefined {
    return this.runtimes.get(site) ?? (this.nodes.has(site) ? 'simulated' : undefined);
  }

  onChange(handler: (site: string) => void): void {
    this.handlers.push(handler);
  }
}

/** A Node of a site as the site plane registers it (`<site>-<name>`, Ready unless told). */
export function siteNode(site: string, name: string, cpu = '4', memory = '8Gi', ready = true): KubeObject {
  const nodeName = `${site}-${name}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: nodeName, labels: { [POD_SITE_LABEL]: site, 'kubernetes.io/hostname': nodeName } },
    status: { capacity: { cpu, memory, pods: '110' }, allocatable: { cpu, memory, pods: '110' }, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}
