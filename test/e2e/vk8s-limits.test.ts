import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';

const CM = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/configmaps';

describe('virtual cluster request limits', () => {
  let h: ConfigHarness;
  before(async () => {
    h = await startConfigHarness({ maxInflight: { readOnly: 2, mutating: 1 }, bodyLimit: 64 * 1024 });
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
  });
  after(() => h?.close());

  it('answers 429 TooManyRequests with Retry-After beyond the in-flight limit, and frees the slot afterwards', async () => {
    // A write whose body has not arrived yet holds the only mutating slot.
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' } });
    let finish: (status: number) => void = () => {};
    const slowDone = new Promise<number>((resolve) => (finish = resolve));
    const slow = httpsRequest(`${h.url}${CM}`, { method: 'POST', ca: h.ca, headers: { authorization: `APIToken ${h.adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      finish(res.statusCode ?? 0);
    });
    slow.write(body.slice(0, 10));
    let refused;
    for (let i = 0; i < 100 && refused === undefined; i++) {
      const answer = await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `other-${i}` } } });
      if (answer.status === 429) refused = answer;
      else await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(refused, 'a second write was refused while the first held the slot');
    const status = refused.json<{ reason: string; code: number }>();
    assert.deepEqual([status.reason, status.code], ['TooManyRequests', 429]);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((await h.call('GET', CM)).status, 200, 'reads have their own limit');
    slow.end(body.slice(10));
    assert.equal(await slowDone, 201);
    assert.equal((await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } } })).status, 201, 'the slot is free again');
  });

  it('answers 413 RequestEntityTooLarge for a body over the limit and stores nothing', async () => {
    const big = await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { k: 'x'.repeat(100 * 1024) } } });
    assert.equal(big.status, 413);
    assert.equal(big.json<{ reason: string }>().reason, 'RequestEntityTooLarge');
    assert.equal((await h.call('GET', `${CM}/big`)).status, 404);
  });
});
