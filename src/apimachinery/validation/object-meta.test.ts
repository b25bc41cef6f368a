import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../errors/status-error.js';
import type { ObjectMeta } from '../object.js';
import { goTime, nameProblems, validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaRules } from './object-meta.js';

const namespaced: ObjectMetaRules = { namespaced: true, nameRule: 'dns1123Subdomain' };
const clusterScoped: ObjectMetaRules = { namespaced: false, nameRule: 'dns1123Label' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);
const ok: ObjectMeta = { name: 'web', namespace: 'default' };

describe('validateObjectMeta', () => {
  it('validateObjectMeta accepts a plain namespaced object', () => {
    assert.deepEqual(validateObjectMeta(ok, namespaced), []);
  });

  it('validateObjectMeta requires a name or generateName, with kube reason and message', () => {
    const causes = validateObjectMeta({ namespace: 'default' }, namespaced);
    assert.deepEqual(causes, [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
  });

  it('validateObjectMeta checks name and generateName by the kind rule; a generateName may end in a dash', () => {
    assert.deepEqual(validateObjectMeta({ generateName: 'web-', name: 'web-x1z2q', namespace: 'default' }, namespaced), []);
    assert.deepEqual(lines(validateObjectMeta({ name: 'Web', namespace: 'default' }, namespaced)), [
      `metadata.name: Invalid value: "Web": a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    const badPrefix = lines(validateObjectMeta({ generateName: 'Web_', name: 'ok', namespace: 'default' }, namespaced));
    assert.equal(badPrefix.length, 1);
    assert.match(badPrefix[0] ?? '', /^metadata\.generateName: Invalid value: "Web_": a DNS-1123 subdomain/);
  });

  it('nameProblems follows each NameRule', () => {
    assert.deepEqual(nameProblems('dns1035Label', '1abc', false).length, 1);
    assert.match(nameProblems('dns1035Label', '1abc', false)[0] ?? '', /^a DNS-1035 label must consist of lower case alphanumeric/);
    assert.deepEqual(nameProblems('dns1123Label', 'a.b', false).length, 1);
    assert.deepEqual(nameProblems('dns1123Label', 'ab-', true), []);
    assert.deepEqual(nameProblems('dns1123Label', 'x'.repeat(64), false), ['must be no more than 63 characters']);
    assert.deepEqual(nameProblems('pathSegment', '..', false), ["may not be '..'"]);
    assert.deepEqual(nameProblems('pathSegment', '..', true), []);
    assert.deepEqual(nameProblems('pathSegment', 'a/b%c', false), ["may not contain '/'", "may not contain '%'"]);
    assert.deepEqual(nameProblems('pathSegment', 'Any_Thing.1', false), []);
  });

  it('validateObjectMeta requires a namespace for namespaced kinds and forbids one otherwise', () => {
    assert.deepEqual(lines(validateObjectMeta({ name: 'web' }, namespaced)), ['metadata.namespace: Required value']);
    assert.deepEqual(lines(validateObjectMeta({ name: 'n1', namespace: 'default' }, clusterScoped)), ['metadata.namespace: Forbidden: not allowed on this type']);
    assert.match(lines(validateObjectMeta({ name: 'web', namespace: 'Bad' }, namespaced))[0] ?? '', /^metadata\.namespace: Invalid value: "Bad": a DNS-1123 label/);
  });

  it('validateObjectMeta checks label keys and values at metadata.labels', () => {
    const causes = lines(validateObjectMeta({ ...ok, labels: { 'good/key': 'v', 'bad key': 'ok', app: 'bad value' } }, namespaced));
    assert.equal(causes.length, 2);
    assert.match(causes[0] ?? '', /^metadata\.labels: Invalid value: "bad key": name part must consist of alphanumeric characters/);
    assert.match(causes[1] ?? '', /^metadata\.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric/);
    const long = lines(validateObjectMeta({ ...ok, labels: { app: 'v'.repeat(64) } }, namespaced));
    assert.deepEqual(long, [`metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`]);
  });

  it('validateObjectMeta checks annotation keys case-insensitively and their total size', () => {
    assert.deepEqual(validateObjectMeta({ ...ok, annotations: { 'Example.COM/Key': 'x' } }, namespaced), []);
    assert.match(lines(validateObjectMeta({ ...ok, annotations: { 'a b': '' } }, namespaced))[0] ?? '', /^metadata\.annotations: Invalid value: "a b": name part/);
    const big = { ...ok, annotations: { a: 'x'.repeat(256 * 1024) } };
    assert.deepEqual(validateObjectMeta(big, namespaced), [{ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: must have at most 262144 bytes' }]);
    assert.deepEqual(validateObjectMeta({ ...ok, annotations: { a: 'x'.repeat(256 * 1024 - 1) } }, namespaced), []);
  });

  it('validateObjectMeta requires ownerReference fields and allows one controller', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u1', controller: true };
    assert.deepEqual(validateObjectMeta({ ...ok, ownerReferences: [ref] }, namespaced), []);
    const empty = lines(validateObjectMeta({ ...ok, ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] }, namespaced));
    assert.deepEqual(empty, [
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    ]);
    const two = lines(validateObjectMeta({ ...ok, ownerReferences: [ref, { ...ref, kind: 'Deployment', name: 'web' }] }, namespaced));
    assert.equal(two.length, 1);
    assert.match(two[0] ?? '', /^metadata\.ownerReferences: Invalid value: .*: Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/web-1 and Deployment\/web$/);
    const event = lines(validateObjectMeta({ ...ok, ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }, namespaced));
    assert.match(event[0] ?? '', /: \/v1, Kind=Event is disallowed from being an owner$/);
  });

  it('validateObjectMeta accepts standard and qualified finalizers and rejects others', () => {
    assert.deepEqual(validateObjectMeta({ ...ok, finalizers: ['kubernetes', 'orphan', 'example.com/cleanup'] }, namespaced), []);
    assert.deepEqual(lines(validateObjectMeta({ ...ok, finalizers: ['cleanup'] }, namespaced)), [
      'metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    const both = validateObjectMeta({ ...ok, finalizers: ['orphan', 'foregroundDeletion'] }, namespaced);
    assert.deepEqual(lines(both), ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set']);
  });

  it('validateObjectMeta rejects a negative generation and malformed managedFields', () => {
    assert.deepEqual(lines(validateObjectMeta({ ...ok, generation: -1 }, namespaced)), ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
    const managed = lines(validateObjectMeta({ ...ok, managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1' }, { manager: 'x' }] }, namespaced));
    assert.deepEqual(managed, ['metadata.managedFields.operation: Invalid value: "": must be `Apply` or `Update`', 'metadata.managedFields.fieldsType: Invalid value: "": must be `FieldsV1`']);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '5', generation: 2, creationTimestamp: '2020-01-02T03:04:05Z' };

  it('validateObjectMetaUpdate accepts an unchanged identity with new labels', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { app: 'web' } }, old, namespaced), []);
  });

  it('validateObjectMetaUpdate reports immutable identity fields like kube', () => {
    const causes = lines(validateObjectMetaUpdate({ ...old, name: 'other', namespace: 'prod', uid: 'u2', creationTimestamp: '2021-01-01T00:00:00Z' }, old, namespaced));
    assert.deepEqual(causes, [
      'metadata.name: Invalid value: "other": field is immutable',
      'metadata.namespace: Invalid value: "prod": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: 2021-01-01 00:00:00 +0000 UTC: field is immutable',
    ]);
  });

  it('validateObjectMetaUpdate requires a resourceVersion and forbids decrementing generation', () => {
    const causes = lines(validateObjectMetaUpdate({ ...old, resourceVersion: '', generation: 1 }, old, namespaced));
    assert.deepEqual(causes, ['metadata.resourceVersion: Invalid value: "": must be specified for an update', 'metadata.generation: Invalid value: 1: must not be decremented']);
  });

  it('validateObjectMetaUpdate forbids new finalizers while the object is being deleted', () => {
    const deleting = { ...old, deletionTimestamp: '2020-02-02T00:00:00Z', deletionGracePeriodSeconds: 0, finalizers: ['a.io/x'] };
    const causes = validateObjectMetaUpdate({ ...deleting, finalizers: ['a.io/x', 'b.io/z', 'b.io/y'] }, deleting, namespaced);
    assert.deepEqual(causes, [
      { reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y", "b.io/z"}' },
    ]);
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting, namespaced), []);
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...deleting, deletionTimestamp: undefined }, deleting, namespaced)), [
      'metadata.deletionTimestamp: Invalid value: null: field is immutable',
    ]);
  });

  it('validateObjectMetaUpdate also runs the create rules', () => {
    assert.match(lines(validateObjectMetaUpdate({ ...old, labels: { 'a b': 'c' } }, old, namespaced))[0] ?? '', /^metadata\.labels: Invalid value: "a b"/);
  });

  it('goTime renders a timestamp as Go prints a metav1.Time', () => {
    assert.equal(goTime('2020-01-02T03:04:05Z'), '2020-01-02 03:04:05 +0000 UTC');
  });
});
