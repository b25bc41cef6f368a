import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SITE_STATUS_ANNOTATION } from '../../src/site-api/site-model.js';
import { notConverged, type DeploymentView } from './deployment-convergence.js';

const SITES = ['re-1', 're-2'];
const counts = (n: number): Record<string, number> => ({ replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n });

function deployment(replicas: number, perSite: Record<string, Record<string, number>>, generation = 2, observedGeneration = 2): DeploymentView {
  const total = Object.values(perSite).reduce((t, c) => t + (c['readyReplicas'] ?? 0), 0);
  return {
    metadata: { name: 'web', generation, annotations: { [SITE_STATUS_ANNOTATION]: JSON.stringify(perSite) } },
    spec: { replicas },
    status: { observedGeneration, replicas: total, updatedReplicas: total, readyReplicas: total, availableReplicas: total },
  };
}

describe('Deployment convergence', () => {
  it('converged: the generation observed, spec.replicas pods ready on every site', () => {
    assert.equal(notConverged(deployment(2, { 're-1': counts(2), 're-2': counts(2) }), SITES), undefined);
  });

  it('not converged: a generation not yet observed, totals short, a site missing or behind', () => {
    assert.match(notConverged(deployment(2, { 're-1': counts(2), 're-2': counts(2) }, 3, 2), SITES) ?? '', /generation 3 not observed/);
    assert.match(notConverged(deployment(3, { 're-1': counts(2), 're-2': counts(2) }), SITES) ?? '', /want 6 \(3 on each of 2 sites\)/);
    assert.match(notConverged(deployment(2, { 're-1': counts(2), 're-3': counts(2) }), SITES) ?? '', /no status from site re-2/);
    assert.match(notConverged(deployment(2, { 're-1': counts(1), 're-2': counts(3) }), SITES) ?? '', /site re-1: replicas 1/);
  });
});
