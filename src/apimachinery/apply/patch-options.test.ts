import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { managerFromRequest, validatePatchOptions, validateWriteOptions } from './patch-options.js';

describe('patch options', () => {
  it('require a fieldManager for apply, with kube-apiserver 1.17 422 body', () => {
    const error = validatePatchOptions({ apply: true, fieldManager: undefined, force: undefined });
    assert.deepEqual(error?.toStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: 'Invalid',
      details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }] },
      code: 422,
    });
    assert.equal(validatePatchOptions({ apply: true, fieldManager: 'kubectl', force: 'false' }), undefined);
  });

  it('refuse force on other patch types, and long or unprintable managers', () => {
    assert.equal(validatePatchOptions({ apply: false, fieldManager: undefined, force: 'true' })?.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    assert.equal(validateWriteOptions('UpdateOptions', 'x'.repeat(129))?.message, 'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes');
    assert.match(validateWriteOptions('CreateOptions', 'é\u0007')?.message ?? '', /^CreateOptions\.meta\.k8s\.io "" is invalid: fieldManager: Invalid value: .*: invalid character U\+0007 \(at position 2\)$/);
    assert.equal(validateWriteOptions('CreateOptions', 'kubectl-create'), undefined);
  });

  it('take the manager from fieldManager, else from the User-Agent before its first slash', () => {
    assert.equal(managerFromRequest('kubectl-client-side-apply', 'kubectl/v1.20.2 (linux/amd64)'), 'kubectl-client-side-apply');
    assert.equal(managerFromRequest(undefined, 'kubectl/v1.20.2 (linux/amd64) kubernetes/faecb19'), 'kubectl');
    assert.equal(managerFromRequest('', 'a\u0000b'), 'ab');
    assert.equal(managerFromRequest(undefined, 'é'.repeat(100)).length, 64, 'cut at 128 bytes');
    assert.equal(managerFromRequest(undefined, undefined), '');
  });
});
