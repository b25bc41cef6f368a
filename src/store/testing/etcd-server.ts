import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPath } from '../../testing/tools.js';
import { freePort } from './free-port.js';

/** etcd 3.4: Debian's etcd-server, unpacked into .tools/ by scripts/provision-tools.mjs. */
function findEtcd(): string {
  return toolPath('etcd');
}

/**
 * A real etcd on free loopback ports with its data in a temporary folder, for tests and
 * benchmarks. `kill()` sends SIGKILL (a crash), `start()` brings it back on the same data.
 */
export class EtcdTestServer {
  readonly dataDir: string;
  private child: ChildProcess | undefined;
  private stderr = '';
  private readonly onExit = (): void => {
    this.child?.kill('SIGKILL');
  };

  private constructor(
    private readonly binary: string,
    readonly clientPort: number,
    private readonly peerPort: number,
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), 'edgeplane-etcd-'));
    process.on('exit', this.onExit);
  }

  static async create(): Promise<EtcdTestServer> {
    const binary = findEtcd();
    const server = new EtcdTestServer(binary, await freePort(), await freePort());
    await server.start();
    return server;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.clientPort}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const peer = `http://127.0.0.1:${this.peerPort}`;
    this.stderr = '';
    const child = spawn(
      this.binary,
      [
        '--name', 'test',
        '--data-dir', this.dataDir,
        '--listen-client-urls', this.endpoint,
        '--advertise-client-urls', this.endpoint,
        '--listen-peer-urls', peer,
        '--initial-advertise-peer-urls', peer,
        '--initial-cluster', `test=${peer}`,
        '--max-request-bytes', String(4 * 1024 * 1024),
        '--logger', 'zap',
        '--log-outputs', 'stderr',
        '--log-level', 'error',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    this.child = child;
    await this.waitHealthy(child);
  }

  private async waitHealthy(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`etcd exited (${child.exitCode ?? child.signalCode}) while starting: ${this.stderr}`);
      }
      try {
        const res = await fetch(`${this.endpoint}/health`);
        const body = (await res.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`etcd did not become healthy within 30 s: ${this.stderr}`);
  }

  /** SIGKILL: etcd gets no chance to flush anything it had not made durable. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
    process.off('exit', this.onExit);
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    this.child = undefined;
  }
}
