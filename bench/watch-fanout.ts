import { fork, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { progress } from './stats.js';
import type { ChildMessage, DeliveryResult, Target } from './watch-protocol.js';

type Written = Extract<ChildMessage, { type: 'written' }>;

/**
 * The watch clients' process (watch-clients.js, forked): many watch connections and the
 * writer live there, so that the server's event loop serves them without running them.
 */
export class WatchClients {
  private waiting: { resolve: (m: ChildMessage) => void; reject: (e: Error) => void } | undefined;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'progress') return progress(`  ${message.opened} watches open`);
      const waiting = this.waiting;
      this.waiting = undefined;
      if (message.type === 'failed') waiting?.reject(new Error(`the watch client process failed: ${message.message}`));
      else waiting?.resolve(message);
    });
    child.on('exit', (code) => this.waiting?.reject(new Error(`the watch client process exited (${String(code)})`)));
  }

  static start(): WatchClients {
    return new WatchClients(fork(fileURLToPath(new URL('./watch-clients.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  private ask<T extends ChildMessage>(type: T['type'], message: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve: (m) => (m.type === type ? resolve(m as T) : reject(new Error(`expected ${type}, got ${m.type}`))), reject };
      this.child.send(message as object);
    });
  }

  /** Opens `count` watches whose events carry sequence numbers 0…expected-1. */
  async open(target: Target, count: number, expected: number): Promise<void> {
    await this.ask('opened', { type: 'open', target, count, expected });
  }

  /** Has the client process POST `total` bodies at `rate`/s (`{seq}`, `{sent}` filled in). */
  write(target: Target, body: string, rate: number, total: number): Promise<Written> {
    return this.ask<Written>('written', { type: 'write', target, body, rate, total });
  }

  /** Waits for every watch to have every event (at most `timeoutMs`), then closes them. */
  collect(timeoutMs: number): Promise<DeliveryResult> {
    return this.ask<DeliveryResult>('result', { type: 'collect', timeoutMs });
  }

  close(): void {
    this.child.kill();
  }
}

/** Pushes `total` lines to the bare server's watches at `rate`/s, each with its `seq` and send time. */
export async function pushAtRate(push: (seq: number, sent: number) => void, now: () => number, rate: number, total: number): Promise<void> {
  const start = now();
  for (let seq = 0; seq < total; seq++) {
    const wait = start + (seq * 1000) / rate - now();
    if (wait > 1) await sleep(wait);
    push(seq, now());
  }
}
