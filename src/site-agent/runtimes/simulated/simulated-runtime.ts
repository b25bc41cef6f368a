import type { Logger } from '../../../observability/logger.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { NodeDirectory, SiteNodeInfo } from '../../node-directory.js';
import { podKeyOf } from '../../pod-key.js';
import type { PodRuntime, PodRuntimeSink } from '../../pod-runtime.js';
import type { ClusterRef } from '../../../site-api/site-api-types.js';
import type { Timers } from '../../../common/timers.js';
import type { PodStreams, PodStreamTarget } from '../../../site-api/pod-streams.js';
import { WakeScheduler } from '../../wake-scheduler.js';
import { conditionStatusOf, ReportedStatuses } from '../kubelet/index.js';
import { SimNetwork } from './sim-network.js';
import { DEFAULT_SIM_OPTIONS, type SimOptions } from './sim-options.js';
import { initialSimPodState, type SimEvent, type SimPodState } from './sim-pod.js';
import { adoptSimPod } from './sim-pod-adopt.js';
import { simPodFactsOf } from './sim-pod-facts.js';
import { stepSimPod } from './sim-pod-machine.js';
import { SimPodStreams } from './sim-pod-streams.js';
import { renderSimPodStatus } from './sim-pod-status.js';

export interface SimulatedRuntimeOptions {
  readonly sink: PodRuntimeSink;
  readonly timers: Timers;
  readonly nodes: NodeDirectory;
  readonly logger: Logger;
  readonly sim?: Partial<SimOptions>;
  /** Uniform [0, 1) draws for container crashes (default Math.random). */
  readonly random?: () => number;
}

interface Entry {
  readonly cluster: ClusterRef;
  readonly node: SiteNodeInfo;
  /** The pod IP came from this runtime's pool (not adopted from a status). */
  readonly pooled: boolean;
  state: SimPodState;
  /** What was reported of it (an adopted pod: its state as found), against which the control plane's copy drifts. */
  readonly reported: ReportedStatuses;
}

/**
 * The simulated runtime (like kwok): every pod of every site of the agent in one map,
 * driven by {@link stepSimPod} and one {@link WakeScheduler} (no per-pod or per-site timers).
 * Pods on nodes the agent does not know are ignored; a pod seen with another uid under the
 * same name is a new pod; a pod whose status says it already runs (or finished) is adopted
 * as it is ({@link adoptSimPod}), so an agent restart does not restart its pods; a pod whose
 * control-plane copy differs from what the runtime reported (marked not Ready while the site
 * was unreachable, a report lost) gets its status again, as the runc runtime's.
 * Its `streams` serve generated logs and refuse exec, attach and port-forward ({@link SimPodStreams}).
 */
export class SimulatedRuntime implements PodRuntime {
  private readonly pods = new Map<string, Entry>();
  private readonly wakes: WakeScheduler<string>;
  private readonly network = new SimNetwork();
  private readonly sim: SimOptions;
  private readonly random: () => number;
  readonly streams: PodStreams;

  constructor(private readonly options: SimulatedRuntimeOptions) {
    this.sim = { ...DEFAULT_SIM_OPTIONS, ...options.sim };
    this.random = options.random ?? Math.random;
    this.streams = new SimPodStreams({ timers: options.timers, sim: this.sim, lookup: (target) => this.streamTarget(target) });
    this.wakes = new WakeScheduler(options.timers, (key, now) => {
      const entry = this.pods.get(key);
      if (entry !== undefined) this.step(key, entry, { type: 'tick', roll: this.random() }, now);
    });
  }

  get size(): number {
    return this.pods.size;
  }

  keys(): IterableIterator<string> {
    return this.pods.keys();
  }

  /** The state of a pod (tests, diagnostics). */
  stateOf(key: string): SimPodState | undefined {
    return this.pods.get(key)?.state;
  }

  /** The state of the pod a stream is for: that name, and that incarnation when the target names its uid. */
  private streamTarget(target: PodStreamTarget): SimPodState | undefined {
    const state = this.pods.get(podKeyOf(target.cluster, target.name))?.state;
    return state === undefined || (target.uid !== '' && target.uid !== state.facts.uid) ? undefined : state;
  }

  apply(cluster: ClusterRef, pod: KubeObject): void {
    const name = pod.metadata.name ?? '';
    const key = podKeyOf(cluster, name);
    const now = this.options.timers.now();
    let entry = this.pods.get(key);
    if (entry !== undefined && entry.state.facts.uid !== (pod.metadata.uid ?? '')) {
      this.remove(key);
      entry = undefined;
    }
    const deleting = pod.metadata.deletionTimestamp !== undefined;
    if (entry === undefined) {
      const nodeName = (pod['spec'] as { nodeName?: string } | undefined)?.nodeName ?? '';
      const node = this.options.nodes.lookup(nodeName);
      if (node === undefined) {
        this.options.logger.debug({ pod: key, node: nodeName }, 'pod is not bound to a node of this agent; ignored');
        return;
      }
      const facts = simPodFactsOf(pod, { hostIP: this.network.hostIP(node), podIP: '' }, this.sim, now);
      const adopted = adoptSimPod(facts, pod, now);
      const reported = new ReportedStatuses();
      if (adopted !== undefined) reported.note(renderSimPodStatus(adopted));
      entry =
        adopted === undefined
          ? { cluster, node, pooled: true, state: initialSimPodState({ ...facts, podIP: this.network.allocate(node) }, now), reported }
          : { cluster, node, pooled: false, state: adopted, reported };
      this.pods.set(key, entry);
      if (adopted?.wakeAt !== undefined) this.wakes.wake(key, adopted.wakeAt);
      if (adopted === undefined && !deleting) this.step(key, entry, { type: 'bound' }, now);
    }
    const serverStatus = pod['status'] as Record<string, unknown> | undefined;
    if (!deleting && entry.reported.drifted(serverStatus)) {
      if (conditionStatusOf(entry.reported.newest, 'Ready') !== conditionStatusOf(serverStatus, 'Ready')) entry.state = { ...entry.state, readyChangedAt: now };
      this.report(key, entry, renderSimPodStatus(entry.state));
    }
    if (deleting) {
      const spec = pod['spec'] as { terminationGracePeriodSeconds?: number } | undefined;
      const graceSeconds = pod.metadata.deletionGracePeriodSeconds ?? spec?.terminationGracePeriodSeconds ?? 30;
      this.step(key, entry, { type: 'delete', graceMs: graceSeconds * 1000 }, now);
    }
  }

  remove(key: string, uid?: string): void {
    const entry = this.pods.get(key);
    if (entry === undefined || (uid !== undefined && uid !== entry.state.facts.uid)) return;
    this.pods.delete(key);
    this.wakes.cancel(key);
    if (entry.pooled) this.network.release(entry.node, entry.state.facts.podIP);
  }

  close(): void {
    this.wakes.close();
  }

  private step(key: string, entry: Entry, event: SimEvent, now: number): void {
    const result = stepSimPod(entry.state, event, now, this.sim);
    entry.state = result.state;
    const { name, uid } = result.state.facts;
    if (result.status !== undefined) this.report(key, entry, result.status);
    if (result.terminated === true) this.options.sink.terminated(key, { cluster: entry.cluster, name, uid });
    if (result.state.wakeAt === undefined) this.wakes.cancel(key);
    else this.wakes.wake(key, result.state.wakeAt);
  }

  private report(key: string, entry: Entry, status: Record<string, unknown>): void {
    const { name, uid } = entry.state.facts;
    entry.reported.note(status);
    this.options.sink.status(key, { cluster: entry.cluster, name, uid, status });
  }
}
