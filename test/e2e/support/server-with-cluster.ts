import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { type ClusterCredentials, clusterWithKubeconfig } from './cluster-credentials.js';
import { startServer, type ServerProcess } from './server-process.js';

/** What {@link useServerWithCluster} sets up; its fields are there once the suite's `before` ran. */
export interface ServerWithCluster {
  readonly server: ServerProcess;
  /** The credentials of `default/vk1`'s kubeconfig. */
  readonly cluster: ClusterCredentials;
}

/**
 * Registers the suite's hooks: a server in a fresh temporary home with the virtual cluster
 * `default/vk1` and its kubeconfig before the tests; the server stopped and the folder
 * removed after them. Call it inside `describe`.
 */
export function useServerWithCluster(prefix: string): ServerWithCluster {
  const root = mkdtempSync(join(tmpdir(), `edgeplane-${prefix}-`));
  const home = join(root, 'home');
  const fixture = {} as { server: ServerProcess; cluster: ClusterCredentials };
  before(async () => {
    fixture.server = await startServer(home);
    fixture.cluster = clusterWithKubeconfig(home, root, 'default', 'vk1');
  });
  after(async () => {
    await fixture.server?.stop();
    rmSync(root, { recursive: true, force: true });
  });
  return fixture;
}
