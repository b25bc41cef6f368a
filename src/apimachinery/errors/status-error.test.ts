import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldError, STATUS_CODE, StatusError } from './status-error.js';

const deployments = { resource: 'deployments', group: 'apps' };
const configmaps = { resource: 'configmaps', group: '' };

describe('Status errors', () => {
  it('NotFound, AlreadyExists and Conflict carry the plural resource and group like kube-apiserver', () => {
    assert.deepEqual(StatusError.notFound(configmaps, 'nope').toStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
    assert.equal(StatusError.notFound(deployments, 'web').message, 'deployments.apps "web" not found');
    assert.deepEqual(StatusError.alreadyExists(deployments, 'web').details, { name: 'web', group: 'apps', kind: 'deployments' });
    const conflict = StatusError.modified(deployments, 'web');
    assert.equal(conflict.code, 409);
    assert.equal(conflict.message, 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('Invalid names the Kind, lists causes, and reads like kubectl prints it', () => {
    const one = StatusError.invalid({ kind: 'Deployment', group: 'apps' }, 'web', [fieldError.invalid('spec.replicas', -1, 'must be greater than or equal to 0')]);
    assert.equal(one.code, 422);
    assert.equal(one.message, 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    assert.deepEqual(one.details?.causes, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' }]);
    const two = StatusError.invalid({ kind: 'ConfigMap', group: '' }, 'c', [fieldError.required('metadata.name'), fieldError.notSupported('spec.type', 'X', ['ClusterIP'])]);
    assert.equal(two.message, 'ConfigMap "c" is invalid: [metadata.name: Required value, spec.type: Unsupported value: "X": supported values: "ClusterIP"]');
  });

  it('every reason has its HTTP status', () => {
    assert.equal(STATUS_CODE.Expired, 410);
    assert.equal(StatusError.tooOldResourceVersion(5, 10).toStatus()['message'], 'too old resource version: 5 (10)');
    assert.equal(StatusError.methodNotAllowed('create', { resource: 'pods', group: '' }).code, 405);
    assert.equal(StatusError.unsupportedMediaType('text/csv').code, 415);
    assert.equal(StatusError.forbidden({ resource: 'namespaces', group: '' }, 'other', 'only namespace "default" exists in this virtual cluster').message, 'namespaces "other" is forbidden: only namespace "default" exists in this virtual cluster');
    assert.equal(StatusError.internal('boom').message, 'Internal error occurred: boom');
  });
});
