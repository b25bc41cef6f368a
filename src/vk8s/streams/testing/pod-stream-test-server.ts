import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { StatusError } from '../../../apimachinery/errors/status-error.js';
import { ensurePlatformPki } from '../../../identity/platform-ca.js';
import { apiGroupList, apiResourceList, apiVersions } from '../../discovery.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { handlePodUpgrade, type PodUpgradeOptions } from '../handle-pod-upgrade.js';
import { podStreamTarget, type PodScope } from '../pod-target.js';
import { serveLogs } from '../serve-logs.js';
import type { PodStreamBackend, StreamKind } from '../types.js';
import { upgradeRequired } from '../upgrade-request.js';

export interface PodStreamTestServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** A kubeconfig file for the server (CA data, no credentials). */
  readonly kubeconfig: string;
  readonly kubeconfigYaml: string;
  /** A scratch folder removed by `close` (kubectl caches go here). */
  readonly dir: string;
  close(): Promise<void>;
}

const SCOPE: PodScope = { tenant: 'acme', namespace: 'ns', vk8s: 'vk' };

/** A Running pod `ns/<name>` with containers `c` (and `d` when `twoContainers`). */
export function runningPod(name: string, options: { twoContainers?: boolean; nodeName?: string } = {}): KubeObject {
  const containers = [{ name: 'c', image: 'busybox', stdin: true }, ...(options.twoContainers === true ? [{ name: 'd', image: 'busybox', stdin: true }] : [])];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '1', creationTimestamp: '2020-01-01T00:00:00Z' },
    spec: { containers, ...(options.nodeName === '' ? {} : { nodeName: options.nodeName ?? 'site-1' }) },
    status: { phase: 'Running', containerStatuses: containers.map((c) => ({ name: c.name, ready: true, restartCount: 0, image: c.image, imageID: '', state: { running: { startedAt: '2020-01-01T00:00:00Z' } } })) },
  };
}

/**
 * A bare HTTPS server for stream protocol tests with real clients: just enough discovery for
 * kubectl, `GET` of the given pods in namespace `ns`, and their `exec`, `attach`,
 * `portforward` (upgrades through `handlePodUpgrade`) and `log` (`serveLogs`).
 */
export async function startPodStreamTestServer(pods: readonly KubeObject[], backend: PodStreamBackend, options: PodUpgradeOptions = {}): Promise<PodStreamTestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-streams-'));
  const pki = await ensurePlatformPki({ dir: join(dir, 'pki'), hosts: ['127.0.0.1'] });
  const byName = new Map(pods.map((p) => [p.metadata.name ?? '', p]));
  const podPath = /^\/api\/v1\/namespaces\/ns\/pods\/([^/]+)(?:\/(exec|attach|portforward|log))?$/;

  const server: Server = createServer({ cert: pki.servingCert, key: pki.servingKey });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'https://localhost');
    const json = (code: number, body: unknown): void => {
      response.writeHead(code, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const status = (error: StatusError): void => json(error.code, error.toStatus());
    if (url.pathname === '/api') return json(200, apiVersions(request.headers.host ?? ''));
    if (url.pathname === '/apis') return json(200, apiGroupList());
    const groupVersion = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(url.pathname);
    if (groupVersion !== null) {
      const list = groupVersion[1] === 'v1' ? apiResourceList('', 'v1') : apiResourceList(groupVersion[2] ?? '', groupVersion[3] ?? '');
      return list === undefined ? status(StatusError.noSuchPath()) : json(200, list);
    }
    const match = podPath.exec(url.pathname);
    const pod = match === null ? undefined : byName.get(match[1] ?? '');
    if (match === null) return status(StatusError.noSuchPath());
    if (pod === undefined) return status(StatusError.notFound({ resource: 'pods', group: '' }, match[1] ?? ''));
    if (match[2] === undefined) return json(200, pod);
    if (match[2] === 'log') return void serveLogs(response, { pod, scope: SCOPE, query: url.searchParams }, backend);
    return status(upgradeRequired());
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'https://localhost');
    const match = podPath.exec(url.pathname);
    const pod = match === null ? undefined : byName.get(match[1] ?? '');
    const kind = match?.[2];
    if (pod === undefined || kind === undefined || kind === 'log') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    try {
      const target = podStreamTarget(pod, url.searchParams.get('container') ?? undefined, SCOPE, kind as StreamKind);
      if (target === null) throw new Error('no target');
      void handlePodUpgrade(request, socket, head, { kind: kind as StreamKind, target, query: url.searchParams }, backend, options);
    } catch (error) {
      const e = error instanceof StatusError ? error : StatusError.internal(String(error));
      const body = JSON.stringify(e.toStatus());
      socket.end(`HTTP/1.1 ${e.code} Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfigYaml = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: test',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${Buffer.from(pki.caCert).toString('base64')}`,
    'users:',
    '- name: tester',
    '  user:',
    '    token: test-token',
    'contexts:',
    '- name: test',
    '  context: {cluster: test, user: tester, namespace: ns}',
    'current-context: test',
    '',
  ].join('\n');
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml);
  const sockets = new Set<Duplex>();
  server.on('secureConnection', (s: Duplex) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  return {
    url,
    kubeconfig,
    kubeconfigYaml,
    dir,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
