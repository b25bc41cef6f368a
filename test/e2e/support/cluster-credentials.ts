import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { EDGEPLANE_BIN } from './server-process.js';

/** What a kubeconfig gives its user: the cluster's URL and the PEM trust and client credential. */
export interface ClusterCredentials {
  /** The virtual cluster's Kubernetes base URL (`…/api/vk8s/namespaces/<ns>/<name>`). */
  readonly server: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

interface Kubeconfig {
  clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
  users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
}

/** Runs `edgeplane <args>` against the server of `home`; fails the test when it fails. */
export function edgeplane(home: string, args: string[], input?: string): void {
  const result = spawnSync(process.execPath, [EDGEPLANE_BIN, ...args], { input, encoding: 'utf8', env: { ...process.env, EDGEPLANE_HOME: home } });
  assert.equal(result.status, 0, result.stderr);
}

/**
 * Creates the virtual cluster `namespace/name` (with `spec`) through the CLI (with the tenant's admin
 * token in `home`), issues a kubeconfig for it into `dir`, and returns what it holds.
 */
export function clusterWithKubeconfig(home: string, dir: string, namespace: string, name: string, spec: Record<string, unknown> = {}): ClusterCredentials {
  edgeplane(home, ['config', 'create', 'virtual_k8s', '-n', namespace, '-f', '-'], JSON.stringify({ metadata: { name }, spec }));
  const file = join(dir, `${namespace}-${name}.kubeconfig`);
  edgeplane(home, ['kubeconfig', '--namespace', namespace, '--vk8s', name, '--name', `kc-${namespace}-${name}`, '--file', file]);
  const kubeconfig = parse(readFileSync(file, 'utf8')) as Kubeconfig;
  const cluster = kubeconfig.clusters[0]?.cluster;
  const user = kubeconfig.users[0]?.user;
  assert.ok(cluster !== undefined && user !== undefined, `${file} has no cluster or user`);
  const pem = (base64: string): string => Buffer.from(base64, 'base64').toString('utf8');
  return { server: cluster.server, ca: pem(cluster['certificate-authority-data']), cert: pem(user['client-certificate-data']), key: pem(user['client-key-data']) };
}
