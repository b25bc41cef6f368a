import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdTestServer } from '../../src/store/testing/etcd-server.js';
import { freePort } from '../../src/store/testing/free-port.js';
import { startServer, type ServerProcess } from '../../test/e2e/support/server-process.js';
import { PlatformClient } from './platform-client.js';

export type Backend = 'sqlite' | 'etcd';

/**
 * One `edgeplane server --local-sites` process in its own temporary home, on SQLite in that
 * home or on a real etcd with its own data folder, listening on one port for its whole life
 * so clients keep their address across restarts. Crashes are SIGKILLs of the processes it
 * started, by their pids; `close` stops and removes everything it made, whatever state it is in.
 */
export class PlatformUnderTest {
  private server: ServerProcess | undefined;
  /** Should this process exit without closing (an uncaught error), the server does not outlive it. */
  private readonly onExit = (): void => void this.server?.child.kill('SIGKILL');
  private constructor(
    readonly backend: Backend,
    private readonly home: string,
    private readonly port: number,
    private readonly etcd: EtcdTestServer | undefined,
  ) {}

  static async start(backend: Backend): Promise<PlatformUnderTest> {
    const home = mkdtempSync(join(tmpdir(), `edgeplane-crashes-${backend}-`));
    let etcd: EtcdTestServer | undefined;
    try {
      etcd = backend === 'etcd' ? await EtcdTestServer.create() : undefined;
      const platform = new PlatformUnderTest(backend, home, await freePort(), etcd);
      // A server that fails to start is not left running (startServer kills it).
      await platform.startServer();
      return platform;
    } catch (error) {
      await etcd?.stop();
      rmSync(home, { recursive: true, force: true });
      throw error;
    }
  }

  /** The tenant admin's client (the token and CA the first start wrote into the home). */
  client(): PlatformClient {
    const ca = readFileSync(join(this.home, 'pki', 'ca.crt'), 'utf8');
    const token = readFileSync(join(this.home, 'api-token'), 'utf8').trim();
    return new PlatformClient(`https://127.0.0.1:${this.port}`, ca, token);
  }

  /** Starts the server on the same home, store and port. */
  async startServer(): Promise<void> {
    const store = this.etcd === undefined ? [] : ['--store', 'etcd', '--etcd-endpoints', this.etcd.endpoint];
    this.server = await startServer(this.home, ['--local-sites', '--listen', `127.0.0.1:${this.port}`, ...store]);
    process.off('exit', this.onExit).on('exit', this.onExit);
  }

  /** SIGKILL of the server process (its local sites die with it); resolves once it has exited. */
  async killServer(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop('SIGKILL');
  }

  /** SIGKILL of etcd (etcd backend only); the server keeps running without its store. */
  async killEtcd(): Promise<void> {
    await this.requireEtcd().kill();
  }

  /** etcd again on the same data folder and ports. */
  async startEtcd(): Promise<void> {
    await this.requireEtcd().start();
  }

  async close(): Promise<void> {
    process.off('exit', this.onExit);
    const server = this.server;
    this.server = undefined;
    if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
      await server.stop('SIGTERM');
      clearTimeout(timer);
    }
    await this.etcd?.stop();
    rmSync(this.home, { recursive: true, force: true });
  }

  private requireEtcd(): EtcdTestServer {
    if (this.etcd === undefined) throw new Error(`the ${this.backend} backend has no etcd to crash`);
    return this.etcd;
  }
}
