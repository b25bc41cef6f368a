import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadKubernetesOpenApi } from '../../vk8s/openapi/kubernetes-document.js';
import { literalSchema, NO_SCHEMA, OpenApiPatchSchemas, type PatchSchema } from './patch-schema.js';
import { PatchError, strategicMergePatch } from './strategic-merge.js';

/** A schema shaped like upstream's test type: merging and non-merging lists of maps and scalars. */
const item: PatchSchema = literalSchema({
  mergingList: { strategy: 'merge', mergeKey: 'name', schema: literalSchema({ mergingList: { strategy: 'merge', mergeKey: 'name' } }) },
  nonMergingList: {},
  mergingIntList: { strategy: 'merge' },
  nonMergingIntList: {},
  retainKeysMap: { strategy: 'retainKeys' },
  mergeRetainList: { strategy: 'merge,retainKeys', mergeKey: 'name' },
});

const smp = (original: unknown, patch: unknown, schema: PatchSchema = item): unknown => strategicMergePatch(original, patch, schema);

describe('strategic merge patch', () => {
  it('merges maps key by key; null deletes; values replace', () => {
    assert.deepEqual(smp({ a: 1, b: { c: 2, d: 3 }, e: 'x' }, { a: 9, b: { d: null, f: 4 }, e: null, g: [1] }), { a: 9, b: { c: 2, f: 4 }, g: [1] });
  });

  it('$patch: replace replaces a map; $patch: delete deletes it', () => {
    assert.deepEqual(smp({ m: { a: 1, b: 2 } }, { m: { $patch: 'replace', c: 3 } }), { m: { c: 3 } });
    assert.deepEqual(smp({ m: { a: 1 }, n: 1 }, { m: { $patch: 'delete' } }), { m: {}, n: 1 }, 'upstream empties a map the original had');
    assert.deepEqual(smp({ n: 1 }, { m: { $patch: 'delete' } }), { n: 1 }, 'and does not add one it did not have');
    assert.deepEqual(smp({ a: 1 }, { $patch: 'replace', b: 2 }), { b: 2 });
    assert.deepEqual(smp({ m: { a: 1 } }, { m: { $patch: 'merge', b: 2 } }), { m: { a: 1, b: 2 } });
  });

  it('merges lists of maps by their merge key, keeping order and appending new items', () => {
    const original = { mergingList: [{ name: 'a', value: 1, other: 'x' }, { name: 'b', value: 2 }] };
    assert.deepEqual(smp(original, { mergingList: [{ name: 'b', value: 20 }, { name: 'c', value: 3 }] }), {
      mergingList: [{ name: 'a', value: 1, other: 'x' }, { name: 'b', value: 20 }, { name: 'c', value: 3 }],
    });
    assert.deepEqual(smp(original, { mergingList: [{ name: 'a', other: null }] }), { mergingList: [{ name: 'a', value: 1 }, { name: 'b', value: 2 }] });
  });

  it('deletes one item with $patch: delete, and replaces the list with an item {$patch: replace}', () => {
    const original = { mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] };
    assert.deepEqual(smp(original, { mergingList: [{ name: 'b', $patch: 'delete' }] }), { mergingList: [{ name: 'a' }, { name: 'c' }] });
    assert.deepEqual(smp(original, { mergingList: [{ name: 'x' }, { $patch: 'replace' }] }), { mergingList: [{ name: 'x' }] });
    assert.deepEqual(smp(original, { mergingList: [{ name: 'zzz', $patch: 'delete' }] }), original, 'deleting a missing item is a no-op');
  });

  it('merges nested merging lists inside merged items; without $setElementOrder new items come first, as upstream orders them', () => {
    const original = { mergingList: [{ name: 'a', mergingList: [{ name: 'x', v: 1 }] }] };
    assert.deepEqual(smp(original, { mergingList: [{ name: 'a', mergingList: [{ name: 'y', v: 2 }] }] }), {
      mergingList: [{ name: 'a', mergingList: [{ name: 'y', v: 2 }, { name: 'x', v: 1 }] }],
    });
    const ordered = smp(original, { mergingList: [{ name: 'a', '$setElementOrder/mergingList': [{ name: 'x' }, { name: 'y' }], mergingList: [{ name: 'y', v: 2 }] }] });
    assert.deepEqual(ordered, { mergingList: [{ name: 'a', mergingList: [{ name: 'x', v: 1 }, { name: 'y', v: 2 }] }] });
  });

  it('replaces lists without the merge strategy, and everything without a schema', () => {
    assert.deepEqual(smp({ nonMergingList: [{ name: 'a' }, { name: 'b' }] }, { nonMergingList: [{ name: 'c' }] }), { nonMergingList: [{ name: 'c' }] });
    assert.deepEqual(smp({ nonMergingIntList: [1, 2] }, { nonMergingIntList: [3] }), { nonMergingIntList: [3] });
    assert.deepEqual(smp({ mergingList: [{ name: 'a' }] }, { mergingList: [{ name: 'b' }] }, NO_SCHEMA), { mergingList: [{ name: 'b' }] });
  });

  it('unions merging lists of scalars; $deleteFromPrimitiveList removes values', () => {
    assert.deepEqual(smp({ mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }), { mergingIntList: [1, 2, 3] });
    assert.deepEqual(smp({ mergingIntList: [1, 2, 3] }, { '$deleteFromPrimitiveList/mergingIntList': [2] }), { mergingIntList: [1, 3] });
    assert.deepEqual(smp({ mergingIntList: [1, 2] }, { mergingIntList: [4], '$deleteFromPrimitiveList/mergingIntList': [1] }), { mergingIntList: [4, 2] });
  });

  it('$retainKeys keeps only the listed keys of the original', () => {
    assert.deepEqual(smp({ retainKeysMap: { name: 'a', value: 1, other: 2 } }, { retainKeysMap: { $retainKeys: ['name', 'value'], value: 5 } }), { retainKeysMap: { name: 'a', value: 5 } });
    assert.deepEqual(
      smp({ mergeRetainList: [{ name: 'a', x: 1, y: 2 }] }, { mergeRetainList: [{ name: 'a', $retainKeys: ['name', 'y'], y: 3 }] }),
      { mergeRetainList: [{ name: 'a', y: 3 }] },
    );
  });

  it('$setElementOrder orders a merged list; items only the server had keep their place', () => {
    const original = { mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] };
    assert.deepEqual(smp(original, { '$setElementOrder/mergingList': [{ name: 'c' }, { name: 'b' }, { name: 'a' }] }), { mergingList: [{ name: 'c' }, { name: 'b' }, { name: 'a' }] });
    const added = smp(original, { '$setElementOrder/mergingList': [{ name: 'd' }, { name: 'a' }], mergingList: [{ name: 'd' }] }) as { mergingList: Array<{ name: string }> };
    assert.deepEqual(added.mergingList.map((i) => i.name), ['d', 'a', 'b', 'c']);
    assert.deepEqual(smp({ mergingIntList: [1, 2, 3] }, { '$setElementOrder/mergingIntList': [3, 1, 2] }), { mergingIntList: [3, 1, 2] });
  });

  it('refuses malformed patches', () => {
    assert.throws(() => smp({ mergingList: [{ name: 'a' }, { name: 'b' }] }, { '$setElementOrder/mergingList': [{ name: 'a' }, { name: 'b' }], mergingList: [{ name: 'b' }, { name: 'a' }] }), /doesn't match the \$setElementOrder\/mergingList list/);
    assert.throws(() => smp({ retainKeysMap: { a: 1 } }, { retainKeysMap: { $retainKeys: ['a'], b: 2 } }), /invalid patch format of retainKeys/);
    assert.throws(() => smp({}, [1]), PatchError);
    assert.throws(() => smp({ mergingList: [{ name: 'a' }] }, { mergingList: [{ value: 1 }] }), /does not contain declared merge key: name/);
    assert.throws(() => smp({}, { $bogus: 1 }), /unknown directive "\$bogus"/);
    assert.throws(() => smp({}, { m: { $patch: 'explode' } }), /unknown patch type/);
    assert.throws(() => smp({}, { '$retainKeys': 'name' }), /must be a list/);
  });

  it('patches a real Deployment with the merge keys of the Kubernetes 1.17 OpenAPI document, as kubectl apply sends them', () => {
    const deployment = new OpenApiPatchSchemas(loadKubernetesOpenApi().definitions).forDefinition('io.k8s.api.apps.v1.Deployment');
    const original = {
      metadata: { name: 'web', labels: { app: 'web' }, finalizers: ['a', 'b'] },
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }], args: ['--x'] },
              { name: 'proxy', image: 'proxy:1' },
            ],
            volumes: [{ name: 'data', emptyDir: {} }],
          },
        },
      },
    };
    const patch = {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] },
      spec: {
        strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null },
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }, { name: 'proxy' }],
            containers: [
              { name: 'sidecar', image: 'side:1' },
              { name: 'app', image: 'app:2', '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }, { name: 'C' }], env: [{ name: 'B', value: '20' }, { name: 'C', value: '3' }], args: ['--y'] },
            ],
            volumes: [{ name: 'data', $retainKeys: ['name', 'configMap'], configMap: { name: 'cfg' } }],
          },
        },
      },
    };
    const result = strategicMergePatch(original, patch, deployment) as typeof original;
    assert.deepEqual(result.metadata.finalizers, ['b']);
    assert.deepEqual(result.spec.strategy, { type: 'Recreate' });
    const containers = result.spec.template.spec.containers as Array<Record<string, unknown>>;
    assert.deepEqual(containers.map((c) => c['name']), ['sidecar', 'app', 'proxy']);
    const app = containers[1] ?? {};
    assert.equal(app['image'], 'app:2');
    assert.deepEqual(app['env'], [{ name: 'A', value: '1' }, { name: 'B', value: '20' }, { name: 'C', value: '3' }], 'env merges by name');
    assert.deepEqual(app['args'], ['--y'], 'args has no merge strategy: replaced');
    assert.deepEqual(app['ports'], [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(result.spec.template.spec.volumes, [{ name: 'data', configMap: { name: 'cfg' } }], 'volumes retain keys: emptyDir dropped');
    assert.equal(result.spec.replicas, 2);
  });
});
