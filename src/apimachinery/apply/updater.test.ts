import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet } from './field-set.js';
import { pathString } from './path-element.js';
import { toFieldSet } from './to-field-set.js';
import { noNamedTypes, types } from './type-schema.js';
import { ManagerConflicts, type ManagerSets, TypedValueError, Updater } from './updater.js';

/** A small type shaped like upstream's test types: a keyed list, a set, an atomic list, a map. */
const schema = types.struct({
  labels: types.map(types.string),
  replicas: types.number,
  items: types.mapList(types.struct({ name: types.string, value: types.number, tags: types.set(types.string) }), 'name'),
  args: types.atomicList(types.string),
  nested: types.struct({ a: types.string, b: types.string }),
});
const ctx = { resolver: noNamedTypes, strict: false };
const updater = new Updater(schema, ctx);

const owned = (managers: ManagerSets, id: string): string[] => (managers.get(id)?.set ?? new FieldSet()).paths().map(pathString);

/** Runs applies and updates in order, returning the object and managers. */
function run(ops: ReadonlyArray<{ apply?: string; update?: string; object: unknown; force?: boolean }>): { object: unknown; managers: ManagerSets } {
  let object: unknown = {};
  let managers: ManagerSets = new Map();
  for (const op of ops) {
    if (op.apply !== undefined) ({ object, managers } = updater.apply(object, op.object, 'v1', managers, op.apply, op.force ?? false));
    else {
      managers = updater.update(object, op.object, 'v1', managers, op.update ?? '');
      object = op.object;
    }
  }
  return { object, managers };
}

describe('field sets of values', () => {
  it('hold leaves, list items, set values and map keys, but not struct nodes', () => {
    const { set } = toFieldSet({ labels: { a: 'x' }, items: [{ name: 'n', tags: ['t'] }], args: ['1'], nested: { a: null } }, schema, ctx);
    assert.deepEqual(set.paths().map(pathString), ['.args', '.items[name="n"]', '.items[name="n"].name', '.items[name="n"].tags[="t"]', '.labels.a', '.nested.a']);
  });

  it('report missing keys, duplicate keys and undeclared fields when strict', () => {
    const { errors } = toFieldSet({ items: [{ value: 1 }, { name: 'a' }, { name: 'a' }], bogus: 1 }, schema, { ...ctx, strict: true });
    assert.deepEqual(
      errors.map((e) => `${pathString(e.path)}: ${e.message}`),
      ['.items: element 0: associative list with keys has an element that omits key field "name"', '.items: duplicate entries for key [name="a"]', '.bogus: field not declared in schema'],
    );
  });
});

describe('apply', () => {
  it('merges into the live object and gives the applier exactly the applied fields', () => {
    const { object, managers } = run([
      { update: 'u', object: { replicas: 1, items: [{ name: 'b', value: 2 }], nested: { b: 'kept' } } },
      { apply: 'a', object: { items: [{ name: 'a', value: 1 }], nested: { a: 'x' } } },
    ]);
    assert.deepEqual(object, { replicas: 1, items: [{ name: 'b', value: 2 }, { name: 'a', value: 1 }], nested: { b: 'kept', a: 'x' } });
    assert.deepEqual(owned(managers, 'a'), ['.items[name="a"]', '.items[name="a"].name', '.items[name="a"].value', '.nested.a']);
  });

  it('removes list items and map keys it applied before and no longer applies', () => {
    const { object, managers } = run([
      { apply: 'a', object: { labels: { x: '1', y: '2' }, items: [{ name: 'a', value: 1 }, { name: 'b' }] } },
      { apply: 'a', object: { labels: { x: '1' }, items: [{ name: 'b' }] } },
    ]);
    assert.deepEqual(object, { labels: { x: '1' }, items: [{ name: 'b' }] });
    assert.deepEqual(owned(managers, 'a'), ['.items[name="b"]', '.items[name="b"].name', '.labels.x']);
  });

  it('leaves a struct field it stops applying in place, unowned (1.17 prunes only items)', () => {
    const { object, managers } = run([
      { apply: 'a', object: { replicas: 3, labels: { x: '1' } } },
      { apply: 'a', object: { labels: { x: '1' } } },
    ]);
    assert.deepEqual(object, { replicas: 3, labels: { x: '1' } });
    assert.deepEqual(owned(managers, 'a'), ['.labels.x']);
  });

  it('keeps an item another applier still applies, and one an updater added', () => {
    const { object } = run([
      { apply: 'a', object: { items: [{ name: 'shared' }, { name: 'mine' }] } },
      { apply: 'b', object: { items: [{ name: 'shared' }] } },
      { update: 'u', object: { items: [{ name: 'shared' }, { name: 'mine' }, { name: 'theirs' }] } },
      { apply: 'a', object: { items: [] } },
    ]);
    assert.deepEqual(object, { items: [{ name: 'shared' }, { name: 'theirs' }] });
  });

  it('removes the whole map when its last key goes (null upstream)', () => {
    const { object } = run([
      { apply: 'a', object: { labels: { x: '1' }, replicas: 1 } },
      { apply: 'a', object: { replicas: 1 } },
    ]);
    assert.deepEqual(object, { labels: null, replicas: 1 });
  });

  it('conflicts on fields another manager owns and would change; force takes them', () => {
    const first = run([{ apply: 'a', object: { replicas: 1, args: ['x'] } }]);
    assert.throws(
      () => updater.apply(first.object, { replicas: 2, args: ['y'] }, 'v1', first.managers, 'b', false),
      (e: unknown) => e instanceof ManagerConflicts && [...e.conflicts].map(([id, set]) => `${id}:${set.paths().map(pathString).join(',')}`).join() === 'a:.args,.replicas',
    );
    const forced = updater.apply(first.object, { replicas: 2 }, 'v1', first.managers, 'b', true);
    assert.deepEqual(forced.object, { replicas: 2, args: ['x'] });
    assert.deepEqual(owned(forced.managers, 'a'), ['.args']);
    assert.deepEqual(owned(forced.managers, 'b'), ['.replicas']);
  });

  it('shares a field applied with the same value, without conflict', () => {
    const { managers } = run([
      { apply: 'a', object: { replicas: 1 } },
      { apply: 'b', object: { replicas: 1 } },
    ]);
    assert.deepEqual([owned(managers, 'a'), owned(managers, 'b')], [['.replicas'], ['.replicas']]);
  });

  it('reports list items whose keys cannot be read', () => {
    assert.throws(() => updater.apply({}, { items: [{ value: 1 }] }, 'v1', new Map(), 'a', false), TypedValueError);
  });
});

describe('objects without a schema', () => {
  const deduced = new Updater(types.deduced, ctx);

  it('track map keys one by one and lists whole, and prune keys no longer applied', () => {
    const first = deduced.apply({}, { spec: { a: 1, list: [1, 2], m: { x: 1 } } }, 'v1', new Map(), 'a', false);
    assert.deepEqual(owned(first.managers, 'a'), ['.spec', '.spec.a', '.spec.list', '.spec.m', '.spec.m.x']);
    const second = deduced.apply(first.object, { spec: { list: [3] } }, 'v1', first.managers, 'a', false);
    assert.deepEqual(second.object, { spec: { list: [3] } });
  });
});

describe('update', () => {
  it('moves changed fields to the updater without conflict and drops removed fields from every owner', () => {
    const { managers } = run([
      { apply: 'a', object: { replicas: 1, labels: { x: '1', y: '2' } } },
      { update: 'u', object: { replicas: 5, labels: { x: '1' } } },
    ]);
    assert.deepEqual(owned(managers, 'a'), ['.labels.x']);
    assert.deepEqual(owned(managers, 'u'), ['.replicas']);
  });

  it('owns whole new containers as well as their fields', () => {
    const { managers } = run([{ update: 'u', object: { labels: { x: '1' }, items: [{ name: 'a', tags: ['t'] }], nested: {} } }]);
    assert.deepEqual(owned(managers, 'u'), ['.items', '.labels', '.nested', '.items[name="a"]', '.items[name="a"].name', '.items[name="a"].tags', '.items[name="a"].tags[="t"]', '.labels.x']);
  });
});
