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

  /** Opens `count` watches whose events carry sequence numbers 0…expected-1; those below `warmup` are counted apart. */
  async open(target: Target, count: number, expected: number, warmup: number): Promise<void> {
    await this.ask('opened', { type: 'open', target, count, expected, warmup });
  }

  /** Has the client process POST `total` bodies at `rate`/s (`{seq}`, `{sent}` filled in); the first `warmup` are not timed. */
  write(target: Target, body: string, rate: number, total: number, warmup: number): Promise<Written> {
    return this.ask<Written>('written', { type: 'write', target, body, rate, total, warmup });
  }

  /** Waits for every watch to have every event (at most `timeoutMs`), then closes them. */
  collect(timeoutMs: number): Promise<DeliveryResult> {
    return this.ask<DeliveryResult>('result', { type: 'collect', timeoutMs });
  }

  close(): void {
    this.child.kill();
  }
}

/**
 * Pushes `total` lines to the bare server's watches at `rate`/s, each with its `seq` and send
 * time, and resolves to how late each push was on its schedule (ms, sorted). The bare server
 * pushes from its own event loop and stamps a line when it gets to it, so its lag is not
 * in its send→event figures; the vK8s writer is another process, so the server's lag in
 * taking its POSTs is. The lag is reported beside the baseline (pushes after the first
 * `warmup`).
 */
export async function pushAtRate(push: (seq: number, sent: number) => void, now: () => number, rate: number, total: number, warmup = 0): Promise<number[]> {
  const start = now();
  const lags: number[] = [];
  for (let seq = 0; seq < total; seq++) {
    const due = start + (seq * 1000) / rate;
    const wait = due - now();
    if (wait > 1) await sleep(wait);
    const sent = now();
    if (seq >= warmup) lags.push(Math.max(0, sent - due));
    push(seq, sent);
  }
  return lags.sort((a, b) => a - b);
}
