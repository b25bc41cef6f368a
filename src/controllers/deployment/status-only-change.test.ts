import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { onlyStatusChanged } from './status-only-change.js';

const deployment = (extra: { annotations?: Record<string, string>; generation?: number; replicas?: number; status?: unknown; labels?: Record<string, string> } = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', generation: extra.generation ?? 1, labels: extra.labels ?? { app: 'web' }, annotations: extra.annotations ?? {} },
  spec: { replicas: extra.replicas ?? 2 },
  status: extra.status ?? {},
});

describe('deployment update classification', () => {
  it('onlyStatusChanged holds for the controller own writes: status, revision and per-site annotations', () => {
    const before = deployment({ annotations: { 'svc.io/sites': 'system/a' } });
    const after = deployment({ annotations: { 'svc.io/sites': 'system/a', 'deployment.kubernetes.io/revision': '2', 'svc.io/site-status': '{"a":{}}', 'svc.io/site-status-omitted': '3' }, status: { replicas: 2 } });
    assert.equal(onlyStatusChanged(before, after), true);
  });

  it('onlyStatusChanged is false when a user changes the spec, labels or a placement annotation', () => {
    const before = deployment();
    assert.equal(onlyStatusChanged(before, deployment({ generation: 2, replicas: 3 })), false);
    assert.equal(onlyStatusChanged(before, deployment({ labels: { app: 'web', tier: 'x' } })), false);
    assert.equal(onlyStatusChanged(before, deployment({ annotations: { 'svc.io/virtual-sites': 'shared/eu' } })), false);
  });
});
