import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet } from './field-set.js';
import { fromFieldsV1, FieldsV1Error, toFieldsV1 } from './fields-v1.js';
import { fieldElement, keyElement, parsePathElement, pathString, serializePathElement, type PathElement } from './path-element.js';

const f = fieldElement;
const k = (fields: Record<string, unknown>): PathElement => keyElement(Object.entries(fields));

describe('path elements', () => {
  it('serialize as f:, k: (keys sorted, Go JSON), v: and i:', () => {
    assert.equal(serializePathElement(f('replicas')), 'f:replicas');
    assert.equal(serializePathElement(k({ protocol: 'TCP', containerPort: 80 })), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(serializePathElement({ kind: 'value', value: 'example.com/x' }), 'v:"example.com/x"');
    assert.equal(serializePathElement({ kind: 'index', index: 2 }), 'i:2');
    assert.equal(serializePathElement(k({ name: 'a<b&c>' })), 'k:{"name":"a\\u003cb\\u0026c\\u003e"}', 'Go escapes HTML characters');
  });

  it('parse back what they serialize, and drop unknown element types', () => {
    for (const pe of [f('a.b'), k({ port: 53, protocol: 'UDP' }), { kind: 'value', value: 7 } as PathElement, { kind: 'index', index: 0 } as PathElement]) {
      assert.deepEqual(parsePathElement(serializePathElement(pe)), pe);
    }
    assert.equal(parsePathElement('x:whatever'), undefined);
    assert.throws(() => parsePathElement('f'), /key must be 2 characters long/);
    assert.throws(() => parsePathElement('fx'), /missing colon: fx/);
    assert.throws(() => parsePathElement('k:{nope}'), /invalid JSON/);
  });

  it('print as kube prints paths in conflicts', () => {
    assert.equal(pathString([f('spec'), f('template'), f('spec'), f('containers'), k({ name: 'nginx' }), f('image')]), '.spec.template.spec.containers[name="nginx"].image');
    assert.equal(pathString([f('ports'), k({ port: 80, protocol: 'TCP' })]), '.ports[port=80,protocol="TCP"]');
    assert.equal(pathString([f('metadata'), f('finalizers'), { kind: 'value', value: 'a' }]), '.metadata.finalizers[="a"]');
    assert.equal(pathString([f('args'), { kind: 'index', index: 1 }]), '.args[1]');
  });
});

describe('fieldsV1', () => {
  const set = FieldSet.of([
    [f('spec'), f('replicas')],
    [f('spec'), f('containers'), k({ name: 'b' })],
    [f('spec'), f('containers'), k({ name: 'b' }), f('image')],
    [f('spec'), f('containers'), k({ name: 'a' }), f('name')],
    [f('metadata'), f('labels'), f('app')],
  ]);

  it('orders elements like upstream and writes "." after the children of a member', () => {
    assert.equal(
      JSON.stringify(toFieldsV1(set)),
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{"f:name":{}},"k:{\\"name\\":\\"b\\"}":{"f:image":{},".":{}}},"f:replicas":{}}}',
    );
  });

  it('round-trips, accepting "." anywhere and null as {}', () => {
    assert.deepEqual(toFieldsV1(fromFieldsV1(toFieldsV1(set))), toFieldsV1(set));
    const read = fromFieldsV1({ 'f:a': { '.': {}, 'f:b': null }, 'f:c': {}, 'q:ignored': {} });
    assert.deepEqual(read.paths().map(pathString), ['.a', '.c', '.a.b']);
  });

  it('rejects values that are not objects and keys it cannot read', () => {
    assert.throws(() => fromFieldsV1({ 'f:a': 1 }), FieldsV1Error);
    assert.throws(() => fromFieldsV1({ 'k:{bad': {} }), FieldsV1Error);
    assert.throws(() => fromFieldsV1([]), FieldsV1Error);
  });
});

describe('field set', () => {
  const a = FieldSet.of([[f('x')], [f('y'), f('z')], [f('y'), f('w')]]);
  const b = FieldSet.of([[f('y'), f('z')], [f('q')]]);

  it('unions, intersects and subtracts path by path, dropping empty children', () => {
    assert.deepEqual(a.union(b).paths().map(pathString), ['.q', '.x', '.y.w', '.y.z']);
    assert.deepEqual(a.intersection(b).paths().map(pathString), ['.y.z']);
    assert.deepEqual(a.difference(b).paths().map(pathString), ['.x', '.y.w']);
    assert.equal(b.difference(b).isEmpty(), true);
    assert.deepEqual(toFieldsV1(b.difference(FieldSet.of([[f('y'), f('z')]]))), { 'f:q': {} });
  });

  it('answers membership of whole paths and of children', () => {
    assert.equal(a.has([f('y'), f('z')]), true);
    assert.equal(a.has([f('y')]), false, 'a parent of members is not itself a member');
    assert.equal(a.child(f('y')).hasMember(f('w')), true);
  });
});
