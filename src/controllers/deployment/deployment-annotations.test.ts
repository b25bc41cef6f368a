import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import { newReplicaSetAnnotations, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION } from './deployment-annotations.js';
import { SITE_STATUS_ANNOTATIONS, SITE_STATUS_OMITTED_ANNOTATION } from './deployment-status.js';

describe('newReplicaSetAnnotations', () => {
  it('copies the Deployment\'s own annotations but not kube\'s skip list nor the per-site status the controller writes', () => {
    const deployment = {
      team: 'web',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      [REVISION_ANNOTATION]: '7',
      [SITE_STATUS_ANNOTATION]: '{"re-1":{}}',
      [SITE_STATUS_OMITTED_ANNOTATION]: '1500',
    };
    assert.deepEqual(newReplicaSetAnnotations({}, deployment, 1, SITE_STATUS_ANNOTATIONS), { team: 'web', [REVISION_ANNOTATION]: '1' });
  });

  it('raises the revision and keeps the earlier one in the history', () => {
    assert.deepEqual(newReplicaSetAnnotations({ [REVISION_ANNOTATION]: '1' }, {}, 3, SITE_STATUS_ANNOTATIONS), { [REVISION_ANNOTATION]: '3', [REVISION_HISTORY_ANNOTATION]: '1' });
  });
});
