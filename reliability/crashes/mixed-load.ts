import { randomBytes } from 'node:crypto';
import { VK8S, type Answer, type PlatformClient } from './platform-client.js';
import type { PendingWrite, WriteLedger } from './write-ledger.js';

/** The label (policers) and data key (ConfigMaps) that carry which write left the object as it is. */
export const MARK = 'crash-write';
export const POLICERS = '/api/config/namespaces/default/policers';
export const CONFIGMAPS = `${VK8S}/api/v1/namespaces/default/configmaps`;
export const DEPLOYMENTS = `${VK8S}/apis/apps/v1/namespaces/default/deployments`;

/** What a Deployment holds as far as the load is concerned: its replicas (per site). */
export const replicasContent = (replicas: number): string => `replicas=${replicas}`;

export interface MixedLoadOptions {
  readonly client: PlatformClient;
  readonly ledger: WriteLedger;
  /** Called with the resourceVersion of every acknowledged vK8s write. */
  readonly observeRevision: (revision: number) => void;
  readonly random: () => number;
  /** Concurrent writers. */
  readonly workers: number;
  /** Deployments created at most (each runs its replicas on every regional edge). */
  readonly maxDeployments: number;
}

export interface MixedLoad {
  /** Acknowledged writes so far. */
  acknowledged(): number;
  /** 4xx answers (none expected: every write is valid), one line each. */
  readonly refusals: string[];
  /** Status codes of the answers that were neither 2xx nor 4xx, with their counts. */
  readonly unavailable: Map<number | 'no answer', number>;
  /** Lets the writes in flight finish and stops. */
  stop(): Promise<void>;
}

type Operation = (mark: string) => Promise<void>;

/**
 * Writers that loop until stopped over a mix of writes through both APIs: policer creates and
 * replaces (configuration API), ConfigMap creates and updates, Deployment creates and scale
 * changes (vK8s), each recorded in the ledger before it is sent and settled by its answer.
 * A write that gets no answer (the server was killed, or is restarting) is settled as unknown
 * and the writer pauses briefly.
 */
export function startMixedLoad(options: MixedLoadOptions): MixedLoad {
  const { client, ledger, random } = options;
  let stopped = false;
  let marks = 0;
  let names = 0;
  const refusals: string[] = [];
  const unavailable = new Map<number | 'no answer', number>();
  const pick = (count: number): number => Math.floor(random() * count);
  const payload = (): string => randomBytes(48 + pick(200)).toString('base64');

  /** Sends one write and settles it by its answer. */
  const send = async (pending: PendingWrite, what: string, request: () => Promise<Answer>, revisionOf?: (answer: Answer) => string | undefined): Promise<void> => {
    let answer: Answer;
    try {
      answer = await request();
    } catch {
      pending.unknown();
      unavailable.set('no answer', (unavailable.get('no answer') ?? 0) + 1);
      return;
    }
    if (answer.status >= 200 && answer.status < 300) {
      const revision = revisionOf === undefined ? undefined : Number(revisionOf(answer));
      if (revision !== undefined && Number.isFinite(revision)) options.observeRevision(revision);
      pending.acknowledged(revision !== undefined && Number.isFinite(revision) ? revision : undefined);
    } else if (answer.status >= 400 && answer.status < 500 && answer.status !== 429) {
      pending.refused();
      refusals.push(`${what}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
    } else {
      pending.unknown();
      unavailable.set(answer.status, (unavailable.get(answer.status) ?? 0) + 1);
    }
  };
  const metaRevision = (answer: Answer): string | undefined => answer.json<{ metadata?: { resourceVersion?: string } }>().metadata?.resourceVersion;

  const policer = (name: string, mark: string): unknown => ({
    metadata: { name, labels: { [MARK]: mark } },
    spec: { committed_information_rate: 1 + pick(10_000), burst_size: 1 + pick(1000) },
  });
  const configMap = (name: string, mark: string): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { [MARK]: mark, payload: payload() } });
  const deployment = (name: string, replicas: number): unknown => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } },
    },
  });
  const freshName = (prefix: string): string => `${prefix}-${(++names).toString(36)}`;
  /** A replicas value other than `last` (1 to 3 per site). */
  const otherReplicas = (last: string): number => {
    const choices = [1, 2, 3].filter((r) => replicasContent(r) !== last);
    return choices[pick(choices.length)] ?? 1;
  };

  const createPolicer: Operation = async (mark) => {
    const name = freshName('p');
    await send(ledger.begin('policer', name, mark), `create policer ${name}`, () => client.call('POST', POLICERS, policer(name, mark)));
  };
  const createConfigMap: Operation = async (mark) => {
    const name = freshName('cm');
    await send(ledger.begin('configmap', name, mark), `create configmap ${name}`, () => client.call('POST', CONFIGMAPS, configMap(name, mark)), metaRevision);
  };
  const createDeployment: Operation = async () => {
    const name = freshName('web');
    const replicas = otherReplicas('');
    await send(ledger.begin('deployment', name, replicasContent(replicas)), `create deployment ${name}`, () => client.call('POST', DEPLOYMENTS, deployment(name, replicas)), metaRevision);
  };
  const operations: ReadonlyArray<{ weight: number; run: Operation }> = [
    { weight: 25, run: createPolicer },
    {
      weight: 20,
      run: async (mark) => {
        const target = ledger.claim('policer', pick);
        if (target === undefined) return createPolicer(mark);
        await send(ledger.begin('policer', target.name, mark), `replace policer ${target.name}`, () => client.call('PUT', `${POLICERS}/${target.name}`, policer(target.name, mark)));
      },
    },
    { weight: 20, run: createConfigMap },
    {
      weight: 20,
      run: async (mark) => {
        const target = ledger.claim('configmap', pick);
        if (target === undefined) return createConfigMap(mark);
        const name = target.name;
        await send(ledger.begin('configmap', name, mark), `update configmap ${name}`, () => client.call('PUT', `${CONFIGMAPS}/${name}`, configMap(name, mark)), metaRevision);
      },
    },
    {
      weight: 15,
      run: async (mark) => {
        if (ledger.count('deployment') < options.maxDeployments) return createDeployment(mark);
        const target = ledger.claim('deployment', pick);
        if (target === undefined) return createConfigMap(mark);
        const replicas = otherReplicas(target.last);
        const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: target.name, namespace: 'default' }, spec: { replicas } };
        await send(ledger.begin('deployment', target.name, replicasContent(replicas)), `scale deployment ${target.name} to ${replicas}`, () => client.call('PUT', `${DEPLOYMENTS}/${target.name}/scale`, scale), metaRevision);
      },
    },
  ];
  const totalWeight = operations.reduce((t, o) => t + o.weight, 0);
  const choose = (): Operation => {
    let roll = random() * totalWeight;
    for (const operation of operations) {
      roll -= operation.weight;
      if (roll < 0) return operation.run;
    }
    return createPolicer;
  };

  const worker = async (): Promise<void> => {
    while (!stopped) {
      const before = ledger.tally().unknown;
      await choose()(`w${++marks}`);
      // No answer or a 5xx: the server or its store is down or starting; do not spin.
      if (ledger.tally().unknown > before) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const running = Array.from({ length: options.workers }, () => worker());
  return {
    acknowledged: () => ledger.tally().acknowledged,
    refusals,
    unavailable,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}
