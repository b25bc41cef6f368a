import { notConverged, type DeploymentView } from './deployment-convergence.js';
import { CONFIGMAPS, DEPLOYMENTS, MARK, POLICERS, replicasContent } from './mixed-load.js';
import type { PlatformClient } from './platform-client.js';
import { verifyObject, type FoundObject, type ObjectKind, type WriteLedger } from './write-ledger.js';

export interface ReadBack {
  readonly acknowledged: number;
  readonly found: number;
  /** One line per acknowledged write that is not there. */
  readonly lost: readonly string[];
}

interface Listed {
  readonly metadata: { readonly name?: string; readonly resourceVersion?: string };
  readonly data?: Readonly<Record<string, string>>;
  readonly spec?: { readonly replicas?: number };
}

async function listByName(client: PlatformClient, path: string, content: (item: Listed) => string): Promise<Map<string, FoundObject>> {
  const answer = await client.read(path);
  if (answer.status !== 200) throw new Error(`GET ${path}: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
  const found = new Map<string, FoundObject>();
  for (const item of answer.json<{ items: Listed[] }>().items) {
    found.set(item.metadata.name ?? '', { content: content(item), revision: Number(item.metadata.resourceVersion) });
  }
  return found;
}

/** Reads each policer the ledger acknowledged a write of (a few at a time). */
async function readPolicers(client: PlatformClient, names: readonly string[]): Promise<Map<string, FoundObject>> {
  const found = new Map<string, FoundObject>();
  const queue = [...names];
  const reader = async (): Promise<void> => {
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
      const answer = await client.read(`${POLICERS}/${name}`);
      if (answer.status !== 200) continue;
      const object = answer.json<{ metadata: { labels?: Record<string, string> }; resource_version?: string }>();
      found.set(name, { content: object.metadata.labels?.[MARK] ?? '(no mark)', revision: Number(object.resource_version) });
    }
  };
  await Promise.all(Array.from({ length: 8 }, reader));
  return found;
}

/** Reads back every object the ledger holds an acknowledged write of and judges each write. */
export async function readBack(client: PlatformClient, ledger: WriteLedger): Promise<ReadBack> {
  const objects = ledger.acknowledgedObjects();
  const found: Record<ObjectKind, Map<string, FoundObject>> = {
    policer: await readPolicers(client, objects.filter((o) => o.kind === 'policer').map((o) => o.name)),
    configmap: await listByName(client, CONFIGMAPS, (item) => item.data?.[MARK] ?? '(no mark)'),
    deployment: await listByName(client, DEPLOYMENTS, (item) => replicasContent(item.spec?.replicas ?? 1)),
  };
  let acknowledged = 0;
  let foundWrites = 0;
  const lost: string[] = [];
  for (const object of objects) {
    const verdict = verifyObject(`${object.kind} ${object.name}`, object.attempts, found[object.kind].get(object.name));
    acknowledged += verdict.acknowledged;
    foundWrites += verdict.found;
    lost.push(...verdict.lost);
  }
  return { acknowledged, found: foundWrites, lost };
}

export interface Convergence {
  readonly deployments: number;
  readonly converged: number;
  readonly seconds: number;
  /** Why each Deployment that had not converged at the deadline had not. */
  readonly behind: readonly string[];
}

/**
 * Polls the Deployments until every one has converged on `sites`, or `timeoutMs` passes;
 * `seconds` counts from `since` (when the load stopped).
 */
export async function waitForConvergence(client: PlatformClient, sites: readonly string[], timeoutMs: number, since: number): Promise<Convergence> {
  const started = Date.now();
  for (;;) {
    const answer = await client.read(DEPLOYMENTS);
    const deployments = answer.status === 200 ? answer.json<{ items: DeploymentView[] }>().items : [];
    const behind = deployments.flatMap((d) => {
      const why = notConverged(d, sites);
      return why === undefined ? [] : [`deployment ${d.metadata.name ?? ''}: ${why}`];
    });
    const seconds = (Date.now() - since) / 1000;
    if (behind.length === 0 || Date.now() - started > timeoutMs) {
      return { deployments: deployments.length, converged: deployments.length - behind.length, seconds, behind };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
