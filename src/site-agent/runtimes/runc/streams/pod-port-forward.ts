import type { Socket } from 'node:net';
import { basename } from 'node:path';
import { SiteStreamError } from '../../../../site-api/pod-streams.js';
import { NetnsSocketBroker, NetnsSocketError } from '../network/index.js';

/** A pod's socket helper stops after this long without a new connection (connections made stay open). */
const IDLE_MS = 30_000;
const DIAL_TIMEOUT_MS = 5000;

/** Go's words for a failed dial (`dial tcp4 127.0.0.1:80: connect: connection refused`). */
function goDialError(network: 'tcp4' | 'tcp6', address: string, error: unknown): string {
  const code = error instanceof NetnsSocketError ? error.code : '';
  const reason =
    code === 'ECONNREFUSED' ? 'connect: connection refused'
    : code === 'ENETUNREACH' ? 'connect: network is unreachable'
    : code === 'EADDRNOTAVAIL' ? 'connect: cannot assign requested address'
    : code === 'ETIMEDOUT' ? 'i/o timeout'
    : (error as Error).message;
  return `dial ${network} ${address}: ${reason}`;
}

/**
 * Port-forward connections into pods, as the CRI runtimes do it: a dial to `localhost:<port>`
 * inside the pod's network namespace (IPv4, then IPv6), so servers bound to 127.0.0.1 in the
 * pod are reached. Each pod gets its own socket helper (`NetnsSocketBroker`) in its namespace,
 * started on the first connection and stopped when the pod goes ({@link release}) or after
 * 30 s without a new connection, so no helper keeps a deleted namespace alive for long.
 */
export class PodPortForwarder {
  private readonly brokers = new Map<string, { broker: NetnsSocketBroker; timer: NodeJS.Timeout }>();

  /**
   * A connected socket to `localhost:port` in the pod's namespace, resumed by whoever reads
   * it, half-close allowed (either side may end its writing and keep reading). A refused dial
   * is a {@link SiteStreamError} with containerd's text, for that connection alone.
   */
  async dial(pod: { readonly uid: string; readonly netnsPath: string; readonly sandboxId: string; readonly ip: string }, port: number): Promise<Socket> {
    const broker = this.brokerOf(pod.uid, basename(pod.netnsPath), pod.ip);
    let socket: Socket;
    try {
      socket = await broker.dial('127.0.0.1', port, DIAL_TIMEOUT_MS);
    } catch (v4) {
      if (v4 instanceof NetnsSocketError && v4.code === 'EHELPER') throw new SiteStreamError(500, `port forward into network namespace ${JSON.stringify(pod.netnsPath)}: ${v4.message}`);
      try {
        socket = await broker.dial('::1', port, DIAL_TIMEOUT_MS);
      } catch (v6) {
        throw new SiteStreamError(
          500,
          `failed to connect to localhost:${port} inside namespace ${JSON.stringify(pod.sandboxId)}, IPv4: ${goDialError('tcp4', `127.0.0.1:${port}`, v4)} IPv6 ${goDialError('tcp6', `[::1]:${port}`, v6)} `,
        );
      }
    }
    socket.allowHalfOpen = true;
    return socket;
  }

  /** The pod is gone (or its sandbox was replaced): its helper stops. */
  release(uid: string): void {
    const entry = this.brokers.get(uid);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    entry.broker.close();
    this.brokers.delete(uid);
  }

  close(): void {
    for (const uid of [...this.brokers.keys()]) this.release(uid);
  }

  private brokerOf(uid: string, netns: string, ip: string): NetnsSocketBroker {
    let entry = this.brokers.get(uid);
    if (entry !== undefined && entry.broker.netns !== netns) {
      this.release(uid);
      entry = undefined;
    }
    if (entry === undefined) {
      entry = { broker: new NetnsSocketBroker(ip, netns), timer: setTimeout(() => undefined, 0) };
      this.brokers.set(uid, entry);
    }
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.release(uid), IDLE_MS);
    entry.timer.unref();
    return entry.broker;
  }
}
