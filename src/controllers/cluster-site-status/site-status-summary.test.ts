import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { statusWithSiteSummary, summarizePodsBySite } from './site-status-summary.js';

function pod(name: string, site: string | undefined, phase: string, ready: boolean): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(site === undefined ? {} : { labels: { 'svc.io/siteName': site } }) },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

describe('summarizePodsBySite', () => {
  it('counts pods, ready, pending and failed per site, sites in name order', () => {
    const summary = summarizePodsBySite([
      pod('a', 're-2', 'Running', true),
      pod('b', 're-1', 'Running', true),
      pod('c', 're-1', 'Pending', false),
      pod('d', 're-2', 'Failed', false),
      pod('e', undefined, 'Running', true),
    ]);
    assert.deepEqual(summary, {
      pods: 4,
      ready: 2,
      sites: 2,
      per_site: { 're-1': { pods: 2, ready: 1, pending: 1, failed: 0 }, 're-2': { pods: 2, ready: 1, pending: 0, failed: 1 } },
    });
    assert.deepEqual(Object.keys(summary.per_site), ['re-1', 're-2']);
  });

  it('is empty for a cluster without placed pods', () => {
    assert.deepEqual(summarizePodsBySite([]), { pods: 0, ready: 0, sites: 0, per_site: {} });
  });
});

describe('statusWithSiteSummary', () => {
  const summary = summarizePodsBySite([pod('a', 're-1', 'Running', true)]);

  it('adds the entry after the ones it does not own', () => {
    assert.deepEqual(statusWithSiteSummary([{ state: 'x' }], summary), [{ state: 'x' }, { ...summary }]);
  });

  it('replaces its own entry and keeps the others in place', () => {
    const old = summarizePodsBySite([]);
    assert.deepEqual(statusWithSiteSummary([{ ...old }, { note: 1 }], summary), [{ ...summary }, { note: 1 }]);
  });
});
