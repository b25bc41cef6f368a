import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodWatchEvent } from '../../site-api/site-api-types.js';
import { PodListMirror } from './pod-list-mirror.js';

const cluster = { tenant: 'acme', namespace: 'shop', name: 'vk' };
const pod = (name: string, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: rv } });
const added = (name: string, rv: string): PodWatchEvent => ({ type: 'ADDED', cluster, object: pod(name, rv) });
const bookmark = (rv: string): PodWatchEvent => ({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: rv } } });
const names = (mirror: PodListMirror): string[] | undefined => mirror.snapshot()?.pods.map((p) => p.pod.metadata.name ?? '');

describe('pod list mirror', () => {
  it('adds up the watch: a list ends at its first BOOKMARK, then changes move the version', () => {
    const mirror = new PodListMirror();
    mirror.beginList();
    mirror.apply(added('a', '5'));
    mirror.apply(added('b', '7'));
    assert.equal(mirror.snapshot(), undefined, 'half a list has a snapshot');
    assert.equal(mirror.apply(bookmark('10')), true);
    assert.deepEqual(mirror.snapshot()?.resourceVersion, '10');
    assert.deepEqual(names(mirror), ['a', 'b']);
    mirror.apply({ type: 'DELETED', cluster, object: pod('a', '11') });
    mirror.apply({ type: 'MODIFIED', cluster, object: pod('b', '12') });
    assert.deepEqual(names(mirror), ['b']);
    assert.equal(mirror.snapshot()?.resourceVersion, '12');
    assert.equal(mirror.apply(bookmark('12')), false, 'a BOOKMARK at the same version changes nothing');
  });

  it('a relist drops the pods it does not bring back; a restored list resumes as it was', () => {
    const mirror = new PodListMirror({ resourceVersion: '20', pods: [{ cluster, pod: pod('a', '3') }, { cluster, pod: pod('b', '4') }] });
    assert.deepEqual(names(mirror), ['a', 'b']);
    mirror.beginList();
    mirror.apply(added('b', '4'));
    mirror.apply(added('c', '30'));
    mirror.apply(bookmark('31'));
    assert.deepEqual(names(mirror), ['b', 'c']);
    assert.equal(mirror.snapshot()?.resourceVersion, '31');
  });
});
