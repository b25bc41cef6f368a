import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RsView } from './replica-set-view.js';
import { offlineSiteSteps } from './offline-site-rollout.js';

const view = (name: string, specReplicas: number): RsView => ({
  name,
  specReplicas,
  statusReplicas: specReplicas,
  readyReplicas: 0,
  availableReplicas: 0,
  createdAt: '2026-12-08T00:00:00Z',
  revision: 1,
  generation: 1,
  observedGeneration: 1,
  deleting: false,
});

describe('offlineSiteSteps', () => {
  it('keeps creations, growth and history cleanup; defers every shrink until the site returns', () => {
    const views = [view('web-old', 4), view('web-new', 1)];
    assert.deepEqual(
      offlineSiteSteps(
        [
          { type: 'create', replicas: 1 },
          { type: 'scale', name: 'web-new', replicas: 2 },
          { type: 'scale', name: 'web-old', replicas: 3 },
          { type: 'delete', name: 'web-ancient' },
        ],
        views,
      ),
      [
        { type: 'create', replicas: 1 },
        { type: 'scale', name: 'web-new', replicas: 2 },
        { type: 'delete', name: 'web-ancient' },
      ],
    );
  });
});
