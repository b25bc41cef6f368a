import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/vk8s/object.js';
import { parseTable } from './support/kubectl-matrix.js';
import { startMultisiteEnv, type MultisiteEnv } from './support/multisite-env.js';
import { countBySite, deploymentYaml, isReady, podsPath, type Pod } from './support/multisite-objects.js';
import { waitFor } from './support/wait-for.js';

type Deployment = KubeObject & { spec: { replicas: number }; status?: Record<string, number | undefined> };

/**
 * Issue 5 end to end: the real control plane, three sites joined through the site API by
 * simulated agents (regional edges re-a/eu and re-b/us with a quota, customer edge ce-1),
 * driven with real kubectl and the configuration API.
 */
describe('vK8s across three sites through kubectl', () => {
  let env: MultisiteEnv;
  before(async () => {
    env = await startMultisiteEnv();
  });
  after(async () => {
    await env?.close();
  });

  /** Waits until the pods of `selector` are Running and Ready with `expected` live pods per site, and no others. */
  const settled = (selector: string, expected: Record<string, number>): Promise<Pod[]> =>
    waitFor(
      `pods ${selector} running ${JSON.stringify(expected)}`,
      async () => {
        const pods = await env.list<Pod>(podsPath(selector));
        const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
        return JSON.stringify(countBySite(pods)) === JSON.stringify(expected) && live.length === pods.length && live.every(isReady) ? live : undefined;
      },
      { describe: async () => JSON.stringify((await env.list<Pod>(podsPath(selector))).map((p) => [p.metadata.name, p.spec.nodeName, p.status?.phase, isReady(p)])) },
    );

  it('a Deployment over the vK8s default lands 2 pods on each regional edge, on the site\'s node, summed in its status', async () => {
    await env.apply(env.kubectl, deploymentYaml('web'));
    await settled('app=web', { 're-a': 2, 're-b': 2 });
    const deployment = await waitFor('the Deployment status summed over sites', async () => {
      const d = await env.read<Deployment>('apis/apps/v1/namespaces/default/deployments/web');
      return d?.status?.['availableReplicas'] === 4 ? d : undefined;
    });
    assert.equal(deployment.spec.replicas, 2);
    assert.deepEqual(
      { replicas: deployment.status?.['replicas'], updated: deployment.status?.['updatedReplicas'], ready: deployment.status?.['readyReplicas'], available: deployment.status?.['availableReplicas'] },
      { replicas: 4, updated: 4, ready: 4, available: 4 },
    );
    assert.deepEqual(JSON.parse(deployment.metadata.annotations?.['svc.io/site-status'] ?? '{}'), {
      're-a': { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
      're-b': { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
    });
    for (const c of env.clients) {
      const rows = parseTable(await env.ok(c, ['get', 'pods', '-l', 'app=web', '-o', 'wide']));
      assert.deepEqual(rows.map((r) => [r['NODE'], r['STATUS'], r['READY']]).sort(), [
        ['re-a-n0', 'Running', '1/1'],
        ['re-a-n0', 'Running', '1/1'],
        ['re-b-n0', 'Running', '1/1'],
        ['re-b-n0', 'Running', '1/1'],
      ], c.label);
      const share = await env.ok(c, ['get', 'pods', '-l', 'app=web,svc.io/siteName=re-a', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}']);
      assert.deepEqual(share.trim().split('\n'), ['re-a-n0', 're-a-n0'], c.label);
      const table = parseTable(await env.ok(c, ['get', 'deployment', 'web']));
      assert.deepEqual([table[0]?.['READY'], table[0]?.['UP-TO-DATE'], table[0]?.['AVAILABLE']], ['4/2', '4', '4'], c.label);
    }
  });
});
