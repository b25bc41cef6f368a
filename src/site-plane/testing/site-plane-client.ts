import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { generateEcKeyPair, privateKeyToPem, SIGN_ECDSA_SHA256, x509 } from '../../common/x509.js';
import { kubectl120, runKubectl } from '../../vk8s/testing/kubectl.js';
import type { SitePlaneHarness } from './site-plane-harness.js';

/** What the site plane's tests do as an agent or a user would: agent keys, a pod watch of the site API, kubectl, waiting for a value. */

/** A key pair and a PKCS#10 request for it, as an agent makes them. */
export async function agentKeys(): Promise<{ csr: string; key: string }> {
  const keys = await generateEcKeyPair();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=ignored', keys, signingAlgorithm: SIGN_ECDSA_SHA256 });
  return { csr: csr.toString('pem'), key: await privateKeyToPem(keys.privateKey) };
}

export interface StreamLine {
  type: string;
  cluster?: ClusterRef;
  object: KubeObject;
}

/** An open pod watch of the site API: its lines so far, and a wait for one. */
/** An open pod watch: its lines so far, its HTTP status, the next line that passes `test` (within 5 s). */
interface PodWatch {
  readonly lines: StreamLine[];
  readonly status: Promise<number>;
  next(test: (l: StreamLine) => boolean): Promise<StreamLine>;
  close(): void;
}

export function openWatch(url: string, ca: string, cert: string, key: string): PodWatch {
  const lines: StreamLine[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  let resolveStatus: (status: number) => void = () => undefined;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const req = request(url, { ca, cert, key, agent: false }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buffer.slice(0, at)) as StreamLine);
        buffer = buffer.slice(at + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  let seen = 0;
  return {
    lines,
    status,
    next: async (test) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const index = lines.findIndex((l, i) => i >= seen && test(l));
        if (index >= 0) {
          seen = index + 1;
          return lines[index] as StreamLine;
        }
        if (Date.now() > deadline) throw new Error(`no matching watch line; got ${JSON.stringify(lines.map((l) => [l.type, l.object.metadata.name]))}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => req.destroy(),
  };
}

/** kubectl 1.20 against the cluster `vk`, with a kubeconfig credential issued through the config API. */
export async function kubectl(h: SitePlaneHarness, args: readonly string[]): Promise<string> {
  const issued = await h.call('POST', '/api/web/namespaces/system/api_credentials', { token: h.adminToken, body: { name: 'kc', spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk', virtual_k8s_namespace: 'default' } } });
  assert.equal(issued.status, 200, issued.body);
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-kubectl-'));
  try {
    writeFileSync(join(dir, 'kubeconfig'), Buffer.from(issued.json<{ data: string }>().data, 'base64'));
    const run = await runKubectl(kubectl120(), args, { kubeconfig: join(dir, 'kubeconfig'), cacheDir: dir });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function eventually<T>(read: () => T | Promise<T>, test: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 8000;
  for (;;) {
    const value = await read();
    if (test(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
