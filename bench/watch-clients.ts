/**
 * A client process of the watch fan-out benchmark (forked by watch-fanout.ts), so the
 * server's event loop is not shared with its clients: one holds many watches, each on its
 * own TLS connection (watch-connection.ts), another writes. Each received line's `"seq"` and
 * `"sent"` give the delivery latency (receive − send on the monotonic clock, which every
 * process of the machine shares).
 */
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import { nowMs, percentile } from './stats.js';
import { openWatchConnection } from './watch-connection.js';
import type { ChildMessage, DeliveryResult, ParentMessage, Target } from './watch-protocol.js';

const SEQ = /"seq":"(\d+)"/;
const SENT = /"sent":"([\d.]+)"/;

class Watches {
  private readonly sockets: TLSSocket[] = [];
  private readonly latencies: Float64Array;
  private readonly seen: Uint8Array;
  received = 0;
  duplicates = 0;
  closedEarly = 0;
  sample = '';
  private collecting = false;
  private cpuAtOpen = process.cpuUsage();
  onEvent: () => void = () => undefined;

  constructor(
    readonly count: number,
    private readonly expected: number,
    private readonly warmup: number,
  ) {
    this.latencies = new Float64Array(count * expected).fill(Number.NaN);
    this.seen = new Uint8Array(count * expected);
  }

  async open(target: Target, report: (opened: number) => void): Promise<void> {
    let opened = 0;
    const openOne = async (index: number): Promise<void> => {
      this.sockets.push(await openWatchConnection(target, (line) => this.line(index, line), () => this.ended()));
      opened++;
      if (opened % 100 === 0) report(opened);
    };
    // A few handshakes at a time: the server is not benchmarked on its TLS accept rate here.
    for (let i = 0; i < this.count; i += 20) await Promise.all(Array.from({ length: Math.min(20, this.count - i) }, (_, k) => openOne(i + k)));
    this.cpuAtOpen = process.cpuUsage();
  }

  private line(index: number, line: string): void {
    const received = nowMs();
    const seq = Number(SEQ.exec(line)?.[1] ?? Number.NaN);
    const sent = Number(SENT.exec(line)?.[1] ?? Number.NaN);
    if (!Number.isInteger(seq) || seq >= this.expected || Number.isNaN(sent)) return;
    if (this.sample === '') this.sample = Buffer.from(line, 'latin1').toString('utf8');
    const slot = index * this.expected + seq;
    if (this.seen[slot] === 1) {
      this.duplicates++;
      return;
    }
    this.seen[slot] = 1;
    this.latencies[slot] = received - sent;
    this.received++;
    this.onEvent();
  }

  private ended(): void {
    if (!this.collecting) this.closedEarly++;
  }

  async collect(timeoutMs: number): Promise<DeliveryResult> {
    const total = this.count * this.expected;
    if (this.received < total) {
      await Promise.race([sleep(timeoutMs), new Promise<void>((resolve) => (this.onEvent = () => (this.received >= total ? resolve() : undefined)))]);
    }
    this.collecting = true;
    for (const socket of this.sockets) socket.destroy();
    const cpu = process.cpuUsage(this.cpuAtOpen);
    const measured: number[] = [];
    const warming: number[] = [];
    this.latencies.forEach((v, slot) => {
      if (!Number.isNaN(v)) (slot % this.expected < this.warmup ? warming : measured).push(v);
    });
    const sorted = measured.sort((a, b) => a - b);
    return {
      type: 'result',
      watchers: this.count,
      received: this.received,
      lost: total - this.received,
      duplicates: this.duplicates,
      closedEarly: this.closedEarly,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] as number),
      warmupP99: percentile(warming.sort((a, b) => a - b), 99),
      sample: this.sample,
      clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  }
}

/** POSTs `total` bodies at `rate`/s on a schedule (a late write goes at once, none is skipped). */
async function write(message: Extract<ParentMessage, { type: 'write' }>): Promise<ChildMessage> {
  const { target, rate, total, warmup } = message;
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: target.ca });
  const acks: number[] = [];
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const start = nowMs();
  for (let seq = 0; seq < total; seq++) {
    const due = start + (seq * 1000) / rate;
    const wait = due - nowMs();
    if (wait > 1) await sleep(wait);
    const sent = nowMs();
    const body = message.body.replaceAll('{seq}', String(seq)).replace('{sent}', sent.toFixed(3));
    inFlight.push(
      new Promise((resolve) => {
        const req = request(`${target.url}${target.path}`, { method: 'POST', agent, headers: { ...target.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 201) errors++;
            else if (seq >= warmup) acks.push(nowMs() - sent);
            resolve();
          });
        });
        req.on('error', () => {
          errors++;
          resolve();
        });
        req.end(body);
      }),
    );
  }
  await Promise.all(inFlight);
  const seconds = (nowMs() - start) / 1000;
  agent.destroy();
  const sorted = acks.sort((a, b) => a - b);
  return { type: 'written', ackP50: percentile(sorted, 50), ackP99: percentile(sorted, 99), errors, seconds };
}

let watches: Watches | undefined;
const send = (message: ChildMessage): void => void process.send?.(message);

// Exit normally when the parent closes us, so `node --cpu-prof` writes this process's profile too.
process.on('SIGTERM', () => process.exit(0));

process.on('message', (message: ParentMessage) => {
  const run = async (): Promise<void> => {
    switch (message.type) {
      case 'open':
        watches = new Watches(message.count, message.expected, message.warmup);
        await watches.open(message.target, (opened) => send({ type: 'progress', opened }));
        return send({ type: 'opened', count: message.count });
      case 'write':
        return send(await write(message));
      case 'collect': {
        if (watches === undefined) throw new Error('collect before open');
        return send(await watches.collect(message.timeoutMs));
      }
    }
  };
  run().catch((error: unknown) => send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }));
});
