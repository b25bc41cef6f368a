import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containerResources, cpuQuota, cpuShares, oomScoreAdjust } from './linux-resources.js';

test('cpu shares follow the request at 1,024 per CPU, within the kernel bounds', () => {
  assert.equal(cpuShares(undefined), 2);
  assert.equal(cpuShares(1n), 2);
  assert.equal(cpuShares(250n), 256);
  assert.equal(cpuShares(1000n), 1024);
  assert.equal(cpuShares(1_000_000n), 262_144);
});

test('the CFS quota is the cpu limit times the 100 ms period, at least 1 ms', () => {
  assert.equal(cpuQuota(undefined), undefined);
  assert.equal(cpuQuota(500n), 50_000);
  assert.equal(cpuQuota(2000n), 200_000);
  assert.equal(cpuQuota(1n), 1_000);
});

test('a flavor-like container gets its cpu quota, shares and memory limit; swap no larger than memory', () => {
  const resources = containerResources({ requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } }, 1024);
  assert.deepEqual(resources.cpu, { shares: 256, quota: 50_000, period: 100_000 });
  assert.deepEqual(resources.memory, { limit: 134_217_728, swap: 134_217_728 });
  assert.deepEqual(resources.pids, { limit: 1024 });
  assert.deepEqual(resources.devices, [{ allow: false, access: 'rwm' }]);
});

test('a container without limits is bounded by nothing but its pid limit', () => {
  const resources = containerResources(undefined, 512);
  assert.deepEqual(resources.cpu, { shares: 2 });
  assert.equal(resources.memory, undefined);
});

test('OOM score adjustment orders BestEffort, Burstable and Guaranteed as kubelet does', () => {
  const gib = 2 ** 30;
  assert.equal(oomScoreAdjust('Guaranteed', 10n, 8 * gib), -997);
  assert.equal(oomScoreAdjust('BestEffort', undefined, 8 * gib), 1000);
  assert.equal(oomScoreAdjust('Burstable', BigInt(4 * gib), 8 * gib), 500);
  assert.equal(oomScoreAdjust('Burstable', undefined, 8 * gib), 999);
  assert.equal(oomScoreAdjust('Burstable', BigInt(8 * gib), 8 * gib), 3);
});
