import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplyConflictError, applyConflictStatus, conflictsFromManagers } from './apply-errors.js';
import { managerIdentifier } from './managed-fields.js';

describe('apply conflict errors', () => {
  const updater = managerIdentifier({ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1' });
  const applier = managerIdentifier({ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1' });

  it('identify appliers without their version and updaters with it, as JSON', () => {
    assert.equal(applier, '{"manager":"kubectl","operation":"Apply"}');
    assert.equal(updater, '{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1"}');
  });

  it('list several conflicts per manager, managers in identifier order', () => {
    const error = new ApplyConflictError(conflictsFromManagers(new Map([[updater, ['.spec.replicas', '.spec.paused']], [applier, ['.metadata.labels.app']]])));
    assert.equal(
      error.message,
      'Apply failed with 3 conflicts: conflicts with "kube-controller-manager" using apps/v1:\n- .spec.replicas\n- .spec.paused\nconflicts with "kubectl":\n- .metadata.labels.app',
    );
    assert.deepEqual(
      (applyConflictStatus(error).toStatus().details as { causes: unknown[] }).causes,
      [
        { reason: 'FieldManagerConflict', message: 'conflict with "kube-controller-manager" using apps/v1', field: '.spec.replicas' },
        { reason: 'FieldManagerConflict', message: 'conflict with "kube-controller-manager" using apps/v1', field: '.spec.paused' },
        { reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.metadata.labels.app' },
      ],
    );
  });
});
