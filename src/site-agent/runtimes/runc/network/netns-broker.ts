import { spawn, type ChildProcess } from 'node:child_process';
import type { Server, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { BrokerReply, BrokerRequest } from './netns-broker-protocol.js';

const HELPER = fileURLToPath(new URL('./netns-broker-helper.js', import.meta.url));
const START_TIMEOUT_MS = 10_000;

/** A socket operation inside a network namespace failed (the error code is the kernel's, e.g. ECONNREFUSED). */
export class NetnsSocketError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

type Pending = { resolve: (handle: unknown) => void; reject: (error: Error) => void };
type Request = BrokerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * Listens and dials inside one network namespace from the agent's process, through a small
 * helper started there with `ip netns exec` that hands each socket over the IPC channel
 * (Node cannot enter a namespace itself). One helper per namespace, started on first use and
 * again when it has died; requests in flight when it dies fail.
 */
export class NetnsSocketBroker {
  private child: ChildProcess | undefined;
  private ready: Promise<ChildProcess> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(
    /** The `ip` program (`ip netns exec` starts the helper). */
    readonly ip: string,
    readonly netns: string,
  ) {}

  /** A server listening on `host:port` inside the namespace. */
  async listen(host: string, port: number): Promise<Server> {
    return (await this.request({ op: 'listen', host, port })) as Server;
  }

  /** A connected socket to `host:port` from inside the namespace (paused: attach readers, then resume). */
  async dial(host: string, port: number, timeoutMs = 5000): Promise<Socket> {
    return (await this.request({ op: 'dial', host, port, timeoutMs })) as Socket;
  }

  close(): void {
    this.closed = true;
    this.child?.disconnect?.();
    this.child?.kill();
    this.child = undefined;
    this.ready = undefined;
  }

  private async request(request: Request): Promise<unknown> {
    if (this.closed) throw new NetnsSocketError(`the socket broker of ${this.netns} is closed`, 'ECLOSED');
    const child = await this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.send({ ...request, id });
    });
  }

  private start(): Promise<ChildProcess> {
    this.ready ??= new Promise((resolve, reject) => {
      const child = spawn(this.ip, ['netns', 'exec', this.netns, process.execPath, HELPER], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
      const timer = setTimeout(() => {
        child.kill();
        reject(new NetnsSocketError(`the socket helper in ${this.netns} did not start within ${START_TIMEOUT_MS} ms`, 'ETIMEDOUT'));
      }, START_TIMEOUT_MS);
      child.on('message', (reply: BrokerReply, handle: unknown) => {
        if ('ready' in reply) {
          clearTimeout(timer);
          this.child = child;
          resolve(child);
          return;
        }
        const waiting = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if (waiting === undefined) return;
        if (reply.ok) waiting.resolve(handle);
        else waiting.reject(new NetnsSocketError(`${reply.message} (in ${this.netns})`, reply.code));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const error = new NetnsSocketError(`the socket helper in ${this.netns} exited (${signal ?? code})${stderr === '' ? '' : `: ${stderr.trim()}`}`, 'EHELPER');
        reject(error);
        for (const waiting of this.pending.values()) waiting.reject(error);
        this.pending.clear();
        if (this.child === child || this.child === undefined) {
          this.child = undefined;
          this.ready = undefined;
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new NetnsSocketError(`cannot start the socket helper in ${this.netns}: ${error.message}`, 'EHELPER'));
      });
    });
    return this.ready;
  }
}
