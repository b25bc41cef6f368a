import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { primaryReplicaSets } from './primary-replica-sets.js';

function rs(name: string, site: string, image: string, deleting = false): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, labels: { 'svc.io/siteName': site }, creationTimestamp: '2024-05-01T12:00:00Z', ...(deleting ? { deletionTimestamp: '2024-05-01T12:01:00Z' } : {}) },
    spec: { template: { metadata: { labels: { app: 'web', 'pod-template-hash': name } }, spec: { containers: [{ name: 'web', image }] } } },
  };
}

describe('primary replica sets', () => {
  it('primary replica sets pick one per template: a placed site first, then the first site by name', () => {
    const all = [rs('v1-tokyo', 're-tokyo', 'v1'), rs('v1-lyon', 'ce-lyon', 'v1'), rs('v2-tokyo', 're-tokyo', 'v2'), rs('v2-paris', 're-paris', 'v2'), rs('v2-lyon', 'ce-lyon', 'v2', true)];
    const names = (placed: string[]): string[] => [...primaryReplicaSets(all, new Set(placed))].map((r) => r.metadata.name ?? '').sort();
    assert.deepEqual(names(['ce-lyon', 're-paris', 're-tokyo']), ['v1-lyon', 'v2-paris'], 'a ReplicaSet being deleted is never chosen');
    assert.deepEqual(names(['re-paris', 're-tokyo']), ['v1-tokyo', 'v2-paris'], 'a site that left comes after placed ones');
  });
});
