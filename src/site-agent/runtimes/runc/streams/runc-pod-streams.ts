import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import { sidecarPortForwardRefusal } from '../../../../api/sidecar-injection.js';
import { podKeyOf } from '../../../pod-key.js';
import { SiteStreamError, type PodStreams, type PodStreamTarget, type SiteAttachOptions, type SiteExecOptions, type SiteLogOptions, type SiteStreamIo } from '../../../../site-api/pod-streams.js';
import type { Program } from '../../../host/index.js';
import type { RuncContainers } from '../containers/index.js';
import { SIDECAR_CONTAINER } from '../sidecar/index.js';
import { bridgeAttachInput, followResizes, type InputBridge } from './attach-input.js';
import { attachOutput } from './attach-output.js';
import { containerLogStream } from './container-log-stream.js';
import type { InstanceLog } from './cri-log-reader.js';
import { PodPortForwarder } from './pod-port-forward.js';
import { logInstance, type LogInstance, type PodStreamView } from './pod-stream-view.js';
import { runcExec } from './runc-exec.js';

/** A pod of the runtime as its streams see it, with its site's runc and `ip`. */
export interface StreamPod {
  readonly view: PodStreamView;
  readonly containers: RuncContainers;
  readonly ip: string;
}

/**
 * kubelet's half of `kubectl logs`, `exec`, `attach`, `cp` and `port-forward` for the pods of
 * a runc runtime (see docs/RUNTIME.md, "Pod streams"). `lookup` gives a pod by its agent key
 * ({@link podKeyOf}); a target whose uid is not the running pod's is not found. exec, attach
 * and cp into the injected `edgeplane-sidecar` are refused (it holds the pod's identity key),
 * and so is port-forward to its port (the vK8s API refuses both first); its log may be read.
 */
export class RuncPodStreams implements PodStreams {
  private readonly forwarder = new PodPortForwarder();

  constructor(
    private readonly lookup: (key: string) => StreamPod | undefined,
    /** The runtime's clock (log `sinceSeconds`). */
    private readonly now: () => number,
    /** socat for attach input; throws, naming what to install, when the site lacks it. */
    private readonly socat: () => Program,
  ) {}

  logs(target: PodStreamTarget, options: SiteLogOptions): Promise<Readable> {
    const pod = this.lookup(podKeyOf(target.cluster, target.name));
    // kubelet: `pod "x" does not exist` (404) before it looks at containers.
    if (pod === undefined || pod.view.uid !== target.uid) return Promise.reject(new SiteStreamError(404, `pod ${JSON.stringify(target.name)} does not exist`));
    const chosen = logInstance(pod.view, target.container, options.previous);
    if ('message' in chosen) return Promise.reject(new SiteStreamError(chosen.code, chosen.message));
    return Promise.resolve(containerLogStream(this.instanceLog(target, chosen), options, this.now()));
  }

  async exec(target: PodStreamTarget, options: SiteExecOptions, io: SiteStreamIo): Promise<number> {
    const { pod, id } = this.running(target, 'exec');
    return runcExec({ containers: pod.containers, id, dir: pod.view.podDir }, options, io);
  }

  /**
   * kubelet's attach, with the container's spec deciding as kubelet does (its `tty`, not the
   * client's): output from the log ({@link attachOutput}; a terminal's output is all stdout);
   * input, when asked for and the container has `stdin: true`, through conmon's attach socket
   * ({@link bridgeAttachInput}); terminal sizes to conmon ({@link followResizes}). Input to a
   * container without stdin goes nowhere, as with containerd and CRI-O (kubelet does not refuse
   * it). Ends when the container exits or the client leaves.
   */
  async attach(target: PodStreamTarget, options: SiteAttachOptions, io: SiteStreamIo): Promise<void> {
    const { pod, id } = this.running(target, 'attach');
    const instance = pod.view.running.get(target.container);
    if (instance === undefined) throw SiteStreamError.containerNotFound(target.container);
    const wantsInput = options.stdin && io.stdin !== undefined && instance.stdio.stdin;
    let socat: Program | undefined;
    if (wantsInput) {
      try {
        socat = this.socat();
      } catch (error) {
        throw new SiteStreamError(500, (error as Error).message);
      }
    }
    const session = new AbortController();
    const stop = (): void => session.abort();
    io.signal.addEventListener('abort', stop);
    if (io.signal.aborted) stop();
    let input: InputBridge | undefined;
    // Input starts once the output's starting point is fixed, so its answers are shown.
    const startInput = (): void => {
      if (socat !== undefined && io.stdin !== undefined && !session.signal.aborted) input = bridgeAttachInput(socat, instance.files.bundle, io.stdin);
    };
    if (instance.stdio.tty && io.resize !== undefined) void followResizes(instance.files.bundle, io.resize, session.signal).catch(() => undefined);
    try {
      await attachOutput(this.instanceLog(target, { id, files: instance.files }), io, startInput);
    } finally {
      stop();
      io.signal.removeEventListener('abort', stop);
      await input?.stop();
    }
  }

  /** kubelet's port-forward, except to the sidecar's port (403, as exec into it): its API serves the pod's private key. */
  async portForward(target: PodStreamTarget, port: number): Promise<Duplex> {
    const pod = this.pod(target);
    const refusal = pod.view.record.containers.some((c) => c.name === SIDECAR_CONTAINER) ? sidecarPortForwardRefusal(port) : undefined;
    if (refusal !== undefined) throw new SiteStreamError(403, refusal);
    const sandbox = pod.view.sandbox;
    if (sandbox === undefined) throw SiteStreamError.podNotFound(target.name, pod.view.namespace);
    return this.forwarder.dial({ uid: pod.view.uid, netnsPath: sandbox.netnsPath, sandboxId: sandbox.infraId, ip: pod.ip }, port);
  }

  /** The pod `uid` is gone: its port-forward helper stops. */
  release(uid: string): void {
    this.forwarder.release(uid);
  }

  close(): void {
    this.forwarder.close();
  }

  private pod(target: PodStreamTarget): StreamPod {
    const pod = this.lookup(podKeyOf(target.cluster, target.name));
    if (pod === undefined || pod.view.uid !== target.uid) throw SiteStreamError.podNotFound(target.name, target.cluster.namespace);
    return pod;
  }

  /** The running instance of the target's container, for exec and attach (kubelet: `container not found ("c")`). */
  private running(target: PodStreamTarget, what: 'exec' | 'attach'): { pod: StreamPod; id: string } {
    const pod = this.pod(target);
    if (target.container === SIDECAR_CONTAINER) {
      throw new SiteStreamError(403, `${what} into container ${JSON.stringify(SIDECAR_CONTAINER)} is not allowed: it holds the pod's identity key (its log may be read)`);
    }
    const instance = pod.view.running.get(target.container);
    const record = pod.view.record.containers.find((c) => c.name === target.container) ?? pod.view.record.initContainers.find((c) => c.name === target.container);
    if (instance === undefined || record?.current.kind !== 'running') throw SiteStreamError.containerNotFound(target.container);
    return { pod, id: instance.id };
  }

  /** An instance's log, ended once conmon recorded its exit or the runtime no longer runs it. */
  private instanceLog(target: PodStreamTarget, instance: LogInstance): InstanceLog {
    const key = podKeyOf(target.cluster, target.name);
    return {
      log: instance.files.log,
      watch: [instance.files.exitDir],
      ended: () => existsSync(join(instance.files.exitDir, instance.id)) || this.lookup(key)?.view.running.get(target.container)?.id !== instance.id,
    };
  }
}
