import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { memoHolds, SiteMemos, type SiteMemo } from './site-memos.js';

const rs = (name: string): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name } });

describe('site memos', () => {
  it('a site memo holds only for the same generation, revision and ReplicaSet objects', () => {
    const a = rs('web-a');
    const b = rs('web-b');
    const memo: SiteMemo = { generation: 'u/1', revision: 2, rss: [a, b], share: { site: 'paris', placed: true, oldRSs: [] } };
    assert.equal(memoHolds(memo, 'u/1', 2, [a, b]), true);
    assert.equal(memoHolds(memo, 'u/2', 2, [a, b]), false, 'the Deployment changed');
    assert.equal(memoHolds(memo, 'u/1', 3, [a, b]), false, 'a new revision');
    assert.equal(memoHolds(memo, 'u/1', 2, [a, { ...b }]), false, 'the informer has a new copy of a ReplicaSet');
    assert.equal(memoHolds(memo, 'u/1', 2, [b, a]), false);
    assert.equal(memoHolds(undefined, 'u/1', 2, [a, b]), false);
  });

  it('site memos drop the sites a Deployment no longer has, and all of a Deployment forgotten', () => {
    const memos = new SiteMemos();
    const share = (site: string): SiteMemo => ({ generation: 'u/1', revision: 1, rss: [], share: { site, placed: true, oldRSs: [] } });
    const web = memos.of('default/web', []);
    web.set('paris', share('paris'));
    web.set('tokyo', share('tokyo'));
    assert.deepEqual([...memos.of('default/web', [{ site: 'paris', oldRSs: [] }]).keys()], ['paris']);
    memos.forget('default/web');
    assert.equal(memos.of('default/web', [{ site: 'paris', oldRSs: [] }]).size, 0);
  });
});
