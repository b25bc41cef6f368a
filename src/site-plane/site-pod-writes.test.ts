import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/object.js';
import { parsePodWatchQuery } from './bound-pod-stream.js';
import { isBoundToSites } from './bound-pod-watch.js';
import { statusWithState } from './site-config-objects.js';
import { SiteNodeView } from './site-node-view.js';
import { parsePodBatch, parsePodEventBatch } from './site-pod-writes.js';

const CLUSTER = { tenant: 'acme', namespace: 'default', name: 'vk' };
const pod = (site: string | undefined, nodeName?: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: site === undefined ? {} : { 'svc.io/siteName': site } }, spec: nodeName === undefined ? {} : { nodeName } });

describe('site pod API', () => {
  it('site pod batch needs cluster, name, uid and (for status) a status object', () => {
    const items = parsePodBatch({ items: [{ cluster: CLUSTER, name: 'p', uid: 'u', status: { phase: 'Running' }, extra: 1 }] }, true);
    assert.deepEqual(items, [{ cluster: CLUSTER, name: 'p', uid: 'u', status: { phase: 'Running' } }]);
    assert.deepEqual(parsePodBatch({ items: [{ cluster: CLUSTER, name: 'p', uid: 'u' }] }, false), [{ cluster: CLUSTER, name: 'p', uid: 'u' }]);
    assert.throws(() => parsePodBatch({}, true), /\{"items": \[\.\.\.\]\}/);
    assert.throws(() => parsePodBatch({ items: [{ cluster: { tenant: 'acme' }, name: 'p', uid: 'u' }] }, false), /items\[0\]\.cluster/);
    assert.throws(() => parsePodBatch({ items: [{ cluster: CLUSTER, name: 'p' }] }, false), /items\[0\]\.uid: is required/);
    assert.throws(() => parsePodBatch({ items: [{ cluster: CLUSTER, name: 'p', uid: 'u' }] }, true), /items\[0\]\.status/);
  });

  it('site pod events need a type, a CamelCase reason and a message of at most 1 KiB', () => {
    const item = { cluster: CLUSTER, name: 'p', uid: 'u', type: 'Warning', reason: 'BackOff', message: 'Back-off restarting failed container' };
    assert.deepEqual(parsePodEventBatch({ items: [{ ...item, extra: 1 }] }), [item]);
    assert.throws(() => parsePodEventBatch({ items: [{ ...item, type: 'Error' }] }), /items\[0\]\.type: must be Normal or Warning/);
    assert.throws(() => parsePodEventBatch({ items: [{ ...item, reason: 'back off' }] }), /items\[0\]\.reason/);
    assert.throws(() => parsePodEventBatch({ items: [{ ...item, message: 'x'.repeat(1025) }] }), /items\[0\]\.message/);
    assert.throws(() => parsePodEventBatch({ items: [{ ...item, uid: undefined }] }), /items\[0\]\.uid: is required/);
  });

  it('site pod watch streams only bound pods of the agent sites', () => {
    const sites = new Set(['a', 'b']);
    assert.equal(isBoundToSites(pod('a', 'a-n0'), sites), true);
    assert.equal(isBoundToSites(pod('a'), sites), false, 'not bound yet');
    assert.equal(isBoundToSites(pod('a', ''), sites), false);
    assert.equal(isBoundToSites(pod('c', 'c-n0'), sites), false, 'another site');
    assert.equal(isBoundToSites(pod(undefined, 'a-n0'), sites), false, 'no site label');
  });

  it('site pod watch query needs watch and takes a resourceVersion', () => {
    assert.deepEqual(parsePodWatchQuery({ watch: '1' }), {});
    assert.deepEqual(parsePodWatchQuery({ watch: 'true', resourceVersion: '0' }), {});
    assert.deepEqual(parsePodWatchQuery({ watch: '1', resourceVersion: '42', timeoutSeconds: '5' }), { resourceVersion: 42, timeoutSeconds: 5 });
    assert.throws(() => parsePodWatchQuery({}), /add \?watch=1/);
    assert.throws(() => parsePodWatchQuery({ watch: '1', resourceVersion: 'x' }), /resourceVersion: Invalid value: "x"/);
  });

  it('site node view shows regional-edge Nodes and the tenant own', () => {
    const visible = SiteNodeView.visibleTo(CLUSTER);
    assert.equal(visible('/sites/nodes/svc-io/paris/paris-n0'), true);
    assert.equal(visible('/sites/nodes/acme/shop/shop-n0'), true);
    assert.equal(visible('/sites/nodes/other/shop/shop-n0'), false);
    assert.equal(visible('/sites/nodes/acme-corp/x/x-n0'), false);
  });

  it('site state replaces the state entry of the status and keeps the others', () => {
    assert.deepEqual(statusWithState([], 'ONLINE'), [{ state: 'ONLINE' }]);
    assert.deepEqual(statusWithState([{ other: 1 }, { state: 'WAITING_FOR_REGISTRATION', since: 'x' }], 'FAILED'), [{ other: 1 }, { state: 'FAILED', since: 'x' }]);
  });
});
