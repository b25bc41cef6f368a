import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConfigHarness, type ConfigHarness } from '../../../src/server/testing/config-harness.js';
import type { ClusterRef } from '../../../src/apimachinery/cluster-ref.js';
import { strategyFor } from '../../../src/vk8s/kinds/index.js';
import { RESOURCES } from '../../../src/vk8s/resources.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { kubectl120, kubectlNewest, runKubectl, spawnKubectl, type KubectlRun } from '../../../src/vk8s/testing/kubectl.js';

/** One kubectl of the matrix; `tag` suffixes the names of the objects a scenario makes with it. */
export interface KubectlClient {
  readonly label: string;
  readonly binary: string;
  readonly tag: string;
}

interface RunOptions {
  readonly env?: Record<string, string>;
  readonly input?: string;
}

/** A `kubectl … -w` in the background. */
interface KubectlWatch {
  /** Resolves with everything printed so far once stdout matches `pattern` (rejects after 20 s). */
  waitFor(pattern: RegExp): Promise<string>;
  /** Ends the watch; resolves with its whole stdout. */
  stop(): Promise<string>;
}

/** A real control plane with one virtual cluster, its kubeconfig, and kubectl 1.20 and the newest kubectl. */
export interface KubectlMatrix {
  readonly h: ConfigHarness;
  readonly dir: string;
  readonly cluster: ClusterRef;
  readonly clients: readonly KubectlClient[];
  /** Runs kubectl (each client with its own cache dir). */
  run(client: KubectlClient, args: readonly string[], options?: RunOptions): Promise<KubectlRun>;
  /** Runs kubectl, asserts exit code 0, and returns stdout. */
  ok(client: KubectlClient, args: readonly string[], options?: RunOptions): Promise<string>;
  /** Runs kubectl, asserts a non-zero exit code, and returns stderr. */
  fails(client: KubectlClient, args: readonly string[], options?: RunOptions): Promise<string>;
  watch(client: KubectlClient, args: readonly string[]): KubectlWatch;
  /** Writes a file into the matrix's folder and returns its path. */
  file(name: string, text: string): string;
  /** The object as stored, read with the tenant admin's token (`apis/apps/v1/deployments/web`). */
  read(path: string): Promise<KubeObject>;
  /** Creates an object users cannot write (pods, replicasets, nodes, …) as the platform does, then sets its status. */
  platformCreate(object: KubeObject & { status?: unknown }): Promise<void>;
  /** Changes an object's status as the platform does (through `/status`). */
  platformUpdateStatus(kind: string, name: string, change: (status: Record<string, unknown>) => void): Promise<void>;
  close(): Promise<void>;
}

const VK8S = '/api/vk8s/namespaces/default/vk1';

/** Starts the matrix: control plane, virtual cluster `default/vk1`, a KUBE_CONFIG credential. */
export async function startKubectlMatrix(): Promise<KubectlMatrix> {
  const clients: KubectlClient[] = [
    { label: 'kubectl 1.20', binary: kubectl120(), tag: 'old' },
    { label: 'newest kubectl', binary: kubectlNewest(), tag: 'new' },
  ];
  // The API's wire behaviour over fixed objects: only the garbage collector runs (deletes cascade),
  // no workload controller rewrites the fixtures (test/e2e/vk8s-multisite covers those).
  const h = await startConfigHarness({ controllers: ['garbage-collector'] });
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-kubectl-matrix-'));
  const created = await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } });
  assert.equal(created.status, 200, created.body);
  const credential = await h.call('POST', '/api/web/namespaces/system/api_credentials', {
    body: { name: 'kube-vk1', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } },
  });
  assert.equal(credential.status, 200, credential.body);
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, Buffer.from(credential.json<{ data: string }>().data, 'base64'));
  const cluster: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };
  const scope = { cluster, dryRun: false, fieldManager: 'edgeplane-test' };
  // Watches still running when the matrix closes (a failed wait) are ended with it.
  const watches = new Set<KubectlWatch>();
  const optionsFor = (client: KubectlClient, o: RunOptions = {}) => ({ kubeconfig, cacheDir: join(dir, `cache-${client.tag}`), ...o });
  const run = (client: KubectlClient, args: readonly string[], o?: RunOptions): Promise<KubectlRun> => runKubectl(client.binary, args, optionsFor(client, o));

  return {
    h,
    dir,
    cluster,
    clients,
    run,
    ok: async (client, args, o) => {
      const result = await run(client, args, o);
      assert.equal(result.status, 0, `${client.label} ${args.join(' ')}: ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    fails: async (client, args, o) => {
      const result = await run(client, args, o);
      assert.notEqual(result.status, 0, `${client.label} ${args.join(' ')} should fail: ${result.stdout}`);
      return result.stderr;
    },
    watch: (client, args) => {
      const watch = watchKubectl(client, args, optionsFor(client));
      watches.add(watch);
      return watch;
    },
    file: (name, text) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    read: async (path) => {
      const res = await h.call('GET', `${VK8S}/${path}`);
      assert.equal(res.status, 200, res.body);
      return res.json<KubeObject>();
    },
    platformCreate: async (object) => {
      const resource = RESOURCES.find((r) => r.kind === object.kind && (r.group === '' ? r.version : `${r.group}/${r.version}`) === object.apiVersion);
      assert.ok(resource, `no served resource for ${object.apiVersion} ${object.kind}`);
      const store = h.controlPlane.virtualClusters.storeFor(resource);
      assert.ok(store, `no storage for ${object.kind}`);
      const { status, ...rest } = structuredClone(object);
      strategyFor(resource).defaults(rest);
      await store.create(scope, rest);
      if (status !== undefined) await store.update(scope, object.metadata.name ?? '', (current) => ({ ...current, status }), { subresource: 'status' });
    },
    platformUpdateStatus: async (kind, name, change) => {
      const resource = RESOURCES.find((r) => r.kind === kind);
      const store = resource === undefined ? undefined : h.controlPlane.virtualClusters.storeFor(resource);
      assert.ok(store, `no storage for ${kind}`);
      await store.update(
        scope,
        name,
        (current) => {
          const status = structuredClone((current as { status?: Record<string, unknown> }).status ?? {});
          change(status);
          return { ...current, status };
        },
        { subresource: 'status' },
      );
    },
    close: async () => {
      await Promise.all([...watches].map((w) => w.stop()));
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function watchKubectl(client: KubectlClient, args: readonly string[], options: { kubeconfig: string; cacheDir: string }): KubectlWatch {
  const child = spawnKubectl(client.binary, args, options);
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const wake of waiters) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(stdout)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(stdout);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${client.label} ${args.join(' ')}: ${pattern} not seen in\n${stdout}\nstderr: ${stderr}`));
        }, 20_000);
        waiters.add(check);
        check();
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await closed;
      return stdout;
    },
  };
}

/**
 * A kubectl table as rows of cells keyed by header: columns start where the header's names
 * start (kubectl's tabwriter pads with at least three spaces; names hold single spaces).
 */
export function parseTable(text: string): Array<Record<string, string>> {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = lines[0] ?? '';
  const starts: Array<{ name: string; at: number }> = [];
  for (const match of header.matchAll(/\S+(?: \S+)*/g)) starts.push({ name: match[0], at: match.index });
  return lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    starts.forEach((column, i) => {
      row[column.name] = line.slice(column.at, starts[i + 1]?.at ?? line.length).trim();
    });
    return row;
  });
}
