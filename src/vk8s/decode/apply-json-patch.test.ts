import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { applyJsonPatch } from './apply-json-patch.js';

const deployment = (): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'a:1', args: ['x', 'y'] }, { name: 'b', image: 'b:1' }] } },
  },
});

/** Asserts kube-apiserver 1.17's 422 for a JSON patch that does not apply, with `cause` as its only cause. */
function doesNotApply(patch: unknown, cause: string, document: unknown = deployment()): void {
  assert.throws(
    () => applyJsonPatch(document, patch),
    (error: unknown) => {
      assert.ok(error instanceof StatusError, String(error));
      assert.deepEqual(error.toStatus(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server rejected our request due to an error in our request',
        reason: 'Invalid',
        details: { causes: [{ message: cause }] },
        code: 422,
      });
      return true;
    },
    JSON.stringify(patch),
  );
}

describe('applyJsonPatch', () => {
  it('applyJsonPatch applies every operation and leaves its inputs alone', () => {
    const document = deployment();
    const value = { app: 'web', tier: 'front' };
    const patch = [
      { op: 'test', path: '/spec/replicas', value: 2 },
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'add', path: '/metadata/labels', value },
      { op: 'add', path: '/metadata/annotations', value: { 'kubectl.kubernetes.io/restartedAt': 'now' } },
      { op: 'add', path: '/spec/template/spec/containers/0/args/1', value: 'inserted' },
      { op: 'add', path: '/spec/template/spec/containers/0/args/-', value: 'last' },
      { op: 'remove', path: '/spec/template/spec/containers/1' },
      { op: 'copy', from: '/metadata/labels', path: '/spec/template/metadata/labels' },
      { op: 'move', from: '/metadata/annotations/kubectl.kubernetes.io~1restartedAt', path: '/spec/template/metadata/annotations' },
    ];
    const before = structuredClone({ document, patch });
    const result = applyJsonPatch(document, patch) as ReturnType<typeof deployment>;
    assert.deepEqual(result, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, annotations: {} },
      spec: {
        replicas: 3,
        template: {
          metadata: { labels: { app: 'web', tier: 'front' }, annotations: 'now' },
          spec: { containers: [{ name: 'a', image: 'a:1', args: ['x', 'inserted', 'y', 'last'] }] },
        },
      },
    });
    assert.deepEqual({ document, patch }, before, 'inputs unchanged');
    (result.metadata as { labels: Record<string, string> }).labels.tier = 'changed';
    assert.equal(value.tier, 'front', 'values are copied out of the patch');
  });

  it('applyJsonPatch keeps evanphx/json-patch v4.2.0 semantics where they differ from RFC 6902', () => {
    const result = applyJsonPatch(deployment(), [
      { op: 'replace', path: '/metadata/labels/missing', value: 'added' },
      { op: 'add', path: '/spec/template/spec/containers/-1', value: { name: 'c' } }, // -1 of the grown list: appends
      { op: 'remove', path: '/spec/template/spec/containers/0/args/-1' },
      { op: 'test', path: '/metadata/labels', value: { app: 'web', missing: 'added', more: 'is fine' } },
      { op: 'copy', from: '/spec/replicas', path: '/spec/template/spec/containers/0/args/3' },
      { op: 'add', path: 'anything/kind', value: 'Thing' },
    ]) as { kind: string; metadata: unknown; spec: { template: { spec: { containers: unknown[] } } } };
    assert.equal(result.kind, 'Thing', 'a path without a leading slash addresses the root');
    assert.deepEqual(result.metadata, { name: 'web', labels: { app: 'web', missing: 'added' } });
    assert.deepEqual(result.spec.template.spec.containers, [
      { name: 'a', image: 'a:1', args: ['x', null, null, 2] },
      { name: 'b', image: 'b:1' },
      { name: 'c' },
    ]);
    assert.deepEqual(applyJsonPatch({ a: 1 }, null), { a: 1 });
  });

  it("applyJsonPatch answers 422 with evanphx/json-patch v4.2.0's messages", () => {
    doesNotApply([{ op: 'add', path: '/metadata/annotations/a', value: 'x' }], 'jsonpatch add operation does not apply: doc is missing path: "/metadata/annotations/a"');
    doesNotApply([{ op: 'remove', path: '/status/replicas' }], 'jsonpatch remove operation does not apply: doc is missing path: "/status/replicas"');
    doesNotApply([{ op: 'remove', path: '/metadata/annotations' }], 'Unable to remove nonexistent key: annotations');
    doesNotApply([{ op: 'remove', path: '/spec/template/spec/containers/2' }], 'Unable to access invalid index: 2');
    doesNotApply([{ op: 'add', path: '/spec/template/spec/containers/4', value: {} }], 'Unable to access invalid index: 4');
    doesNotApply([{ op: 'add', path: '/spec/template/spec/containers/x', value: {} }], 'strconv.Atoi: parsing "x": invalid syntax');
    doesNotApply([{ op: 'replace', path: '/spec/template/spec/containers/5', value: {} }], 'jsonpatch replace operation does not apply: doc is missing key: /spec/template/spec/containers/5');
    doesNotApply([{ op: 'replace', path: '/status/replicas', value: 1 }], 'jsonpatch replace operation does not apply: doc is missing path: /status/replicas');
    doesNotApply([{ op: 'test', path: '/spec/replicas', value: 3 }], 'Testing value /spec/replicas failed');
    doesNotApply([{ op: 'test', path: '/metadata/labels', value: { other: 'x' } }], 'Testing value /metadata/labels failed');
    doesNotApply([{ op: 'test', path: '/status/replicas', value: 3 }], 'jsonpatch test operation does not apply: is missing path: /status/replicas');
    doesNotApply([{ op: 'move', from: '/status/a', path: '/b' }], 'jsonpatch move operation does not apply: doc is missing from path: /status/a');
    doesNotApply([{ op: 'move', from: '/spec/replicas', path: '/status/replicas' }], 'jsonpatch move operation does not apply: doc is missing destination path: /status/replicas');
    doesNotApply([{ op: 'copy', from: '/spec/replicas', path: '/status/replicas' }], 'jsonpatch copy operation does not apply: doc is missing destination path: /status/replicas');
    doesNotApply([{ op: 'bogus', path: '/a' }], 'Unexpected kind: bogus');
    doesNotApply([{ path: '/a' }], 'Unexpected kind: unknown');
    doesNotApply([null], 'Unexpected kind: unknown');
    doesNotApply([{ op: 'add', value: 1 }], 'jsonpatch add operation does not apply: doc is missing path: "unknown"');
    doesNotApply([{ op: 'replace', path: '', value: {} }], 'jsonpatch replace operation does not apply: doc is missing path: ');
  });

  it('applyJsonPatch answers 400 for a body that is not a list of operations, and 413 beyond 10000 operations', () => {
    const rejects = (patch: unknown, code: number, message: string): void =>
      assert.throws(() => applyJsonPatch({}, patch), (error: unknown) => error instanceof StatusError && error.code === code && error.message === message, message);
    rejects({ op: 'add', path: '/a', value: 1 }, 400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    rejects('[]', 400, 'json: cannot unmarshal string into Go value of type jsonpatch.Patch');
    rejects([{ op: 'test', path: '/a' }, 5], 400, 'json: cannot unmarshal number into Go value of type jsonpatch.operation');
    const many = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    rejects(many, 413, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    assert.deepEqual(applyJsonPatch({ a: 1 }, many.slice(0, 10000)), { a: 1 });
  });
});
