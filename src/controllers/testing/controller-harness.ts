import assert from 'node:assert/strict';
import { createLogger } from '../../observability/logger.js';
import type { PlacedSite } from '../placement/placed-site.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { systemClock } from '../../common/clock.js';
import type { SiteInventory, SiteState } from '../placement/site-inventory.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ControllerStarter, PodTemplateFor } from '../manager/controller-context.js';
import { startControllerManager, type ControllerManager } from '../manager/controller-manager.js';
import { isPodActive, isPodReady, podStatusOf } from '../runtime/pod-state.js';

/** An event the fake recorder kept. */
export interface RecordedEvent {
  readonly object: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** A placement view whose sites the test sets (the same for every object). */
export class FakePlacement implements PlacementView {
  private sites: PlacedSite[] = [];
  private readonly handlers: Array<(cluster: ClusterRef) => void> = [];

  constructor(private readonly clusters: readonly ClusterRef[]) {}

  place(names: readonly string[]): void {
    this.sites = names.map((name) => ({ name, type: name.startsWith('re-') ? 'REGIONAL_EDGE' : 'CUSTOMER_EDGE', labels: { [POD_SITE_LABEL]: name } }));
    for (const cluster of this.clusters) for (const handler of this.handlers) handler(cluster);
  }

  sitesFor(): readonly PlacedSite[] {
    return this.sites;
  }

  onClusterChange(handler: (cluster: ClusterRef) => void): void {
    this.handlers.push(handler);
  }
}

/** A site inventory whose nodes and quotas the test sets. */
export class FakeSites implements SiteInventory {
  private readonly nodes = new Map<string, KubeObject[]>();
  private readonly quotas = new Map<string, { cpuMillis: number; memoryBytes: number }>();
  private readonly handlers: Array<(site: string) => void> = [];

  setNodes(site: string, nodes: KubeObject[]): void {
    this.nodes.set(site, nodes);
    for (const handler of this.handlers) handler(site);
  }

  setQuota(site: string, quota: { cpuMillis: number; memoryBytes: number }): void {
    this.quotas.set(site, quota);
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

  onChange(handler: (site: string) => void): void {
    this.handlers.push(handler);
  }
}

/** A Node of a site as the site plane registers it. */
export function siteNode(site: string, name: string, cpu = '4', memory = '8Gi', ready = true): KubeObject {
  const nodeName = `${site}-${name}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: nodeName, labels: { [POD_SITE_LABEL]: site, 'kubernetes.io/hostname': nodeName } },
    status: { capacity: { cpu, memory, pods: '110' }, allocatable: { cpu, memory, pods: '110' }, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

export interface ControllerHarness {
  readonly store: Store;
  readonly storage: VirtualClusterStorage;
  readonly cluster: ClusterRef;
  readonly scope: RequestScope;
  readonly placement: FakePlacement;
  readonly sites: FakeSites;
  readonly events: RecordedEvent[];
  readonly deployments: GenericStore;
  readonly replicaSets: GenericStore;
  readonly pods: GenericStore;
  readonly manager: ControllerManager;
  /** Starts another manager over the same store (a second control-plane replica). */
  startManager(identity: string): Promise<ControllerManager>;
  /** Every object of a resource in the cluster, from the store. */
  list(store: GenericStore): Promise<KubeObject[]>;
  /** Marks every active pod not yet ready Running and Ready (what a site would report). */
  readyPods(): Promise<number>;
  stop(): Promise<void>;
}

export const HARNESS_CLUSTER: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };

/** The test's podTemplateFor: only the site label, as the brief's contract allows. */
export const labelOnlyTemplate: PodTemplateFor = (_cluster, _workload, template, site) => ({ ...template, metadata: { ...template.metadata, labels: { ...(template.metadata?.labels ?? {}), [POD_SITE_LABEL]: site.name } } });

/**
 * A memory store, the virtual cluster storage, a fake placement (sites `siteNames` placed)
 * and inventory, and a controller manager running `controllers` with a short election.
 */
export async function startControllerHarness(options: { controllers: () => ControllerStarter[]; siteNames: readonly string[]; podTemplateFor?: PodTemplateFor }): Promise<ControllerHarness> {
  const store = openMemoryStore();
  const clock = systemClock();
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });
  const storage = new VirtualClusterStorage({ store, clock });
  await storage.start();
  const cluster = HARNESS_CLUSTER;
  const placement = new FakePlacement([cluster]);
  placement.place(options.siteNames);
  const sites = new FakeSites();
  const events: RecordedEvent[] = [];
  const recorder: EventRecorder = { record: (_c, object, type, reason, message) => void events.push({ object: object.metadata.name ?? '', type, reason, message }) };
  const managers: ControllerManager[] = [];
  const startManager = async (identity: string): Promise<ControllerManager> => {
    const manager = await startControllerManager({
      store,
      storage,
      placement,
      podTemplateFor: options.podTemplateFor ?? labelOnlyTemplate,
      events: recorder,
      sites,
      clock,
      logger,
      identity,
      election: { ttlSeconds: 2, renewIntervalMs: 200, retryIntervalMs: 500 },
      controllers: options.controllers(),
    });
    managers.push(manager);
    return manager;
  };
  const manager = await startManager('harness');
  const scope: RequestScope = { cluster, dryRun: false, fieldManager: 'test' };
  const of = (group: string, resource: string): GenericStore => storage.storeFor({ group, resource }) as GenericStore;
  const pods = of('', 'pods');
  const list = async (s: GenericStore): Promise<KubeObject[]> => [...(await s.list(cluster, {})).items];
  return {
    store,
    storage,
    cluster,
    scope,
    placement,
    sites,
    events,
    deployments: of('apps', 'deployments'),
    replicaSets: of('apps', 'replicasets'),
    pods,
    manager,
    startManager,
    list,
    readyPods: async () => {
      const waiting = (await list(pods)).filter((p) => isPodActive(p) && !isPodReady(p));
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      await Promise.all(
        waiting.map((p) =>
          pods
            .update(scope, p.metadata.name ?? '', (live) => ({ ...live, status: { ...podStatusOf(live), phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }), { subresource: 'status', retryOnConflict: true })
            .catch(() => undefined),
        ),
      );
      return waiting.length;
    },
    stop: async () => {
      await Promise.all(managers.map((m) => m.stop()));
      storage.stop();
      await store.close();
    },
  };
}

/** Polls `check` until it holds (controllers work asynchronously). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
