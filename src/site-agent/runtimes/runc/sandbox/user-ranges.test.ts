import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { releaseUserRangeClaims, SiteUserRanges } from './user-range-claims.js';
import { blockRange, freeBlock, hostIdsInUse, runsInUserNamespace } from './user-ranges.js';

const dir = mkdtempSync(join(tmpdir(), 'user-ranges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('host ids in use: every account id and each subordinate range', () => {
  const spans = hostIdsInUse({ passwd: 'root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n', group: 'root:x:0:\nbig:x:70000:\n', subuid: 'alice:100000:65536\n', subgid: '' });
  assert.deepEqual(spans, [
    { start: 0, end: 1 },
    { start: 1000, end: 1001 },
    { start: 0, end: 1 },
    { start: 70000, end: 70001 },
    { start: 100000, end: 165536 },
  ]);
  // Block 1 (65536…131071) holds gid 70000 and alice's subordinate ids; block 2 (131072…196607) her subordinate ids' end; block 3 is free.
  assert.equal(freeBlock(spans, new Set()), 3);
  assert.equal(freeBlock(spans, new Set([3, 4])), 5);
  assert.deepEqual(blockRange(3), { hostId: 196608, size: 65536 });
  assert.equal(freeBlock([{ start: 0, end: 2 ** 32 }], new Set()), undefined);
});

test('regional edges run every pod in a user namespace; customer edges only those with hostUsers: false', () => {
  assert.equal(runsInUserNamespace({}, 'REGIONAL_EDGE'), true);
  assert.equal(runsInUserNamespace({ hostUsers: true }, 'REGIONAL_EDGE'), true);
  assert.equal(runsInUserNamespace({}, 'CUSTOMER_EDGE'), false);
  assert.equal(runsInUserNamespace({ hostUsers: true }, 'CUSTOMER_EDGE'), false);
  assert.equal(runsInUserNamespace({ hostUsers: false }, 'CUSTOMER_EDGE'), true);
});

test('a cluster keeps its block on its site; clusters and sites get disjoint blocks; a claimed block is not taken twice', async () => {
  const etc = join(dir, 'etc');
  const claims = join(dir, 'claims');
  const files = { passwd: 'root:x:0:0::/root:/bin/sh\n', group: 'root:x:0:\n', subuid: 'u:65536:65536\n', subgid: '' };
  mkdirSync(etc, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(etc, name), text);
  mkdirSync(join(dir, 'site-a'));
  mkdirSync(join(dir, 'site-b'));
  const a = new SiteUserRanges(join(dir, 'site-a'), 'ns-a', claims, etc);
  const b = new SiteUserRanges(join(dir, 'site-b'), 'ns-b', claims, etc);
  const vk1 = { tenant: 't1', namespace: 'default', name: 'vk1' };
  const vk2 = { tenant: 't2', namespace: 'default', name: 'vk2' };
  const [a1, a2, b1] = await Promise.all([a.rangeFor(vk1), a.rangeFor(vk2), b.rangeFor(vk1)]);
  const starts = [a1.hostId, a2.hostId, b1.hostId];
  assert.equal(new Set(starts).size, 3, `disjoint: ${starts.join(', ')}`);
  for (const start of starts) assert.ok(start >= 131072, `block 1 is the host's subordinate range: ${start}`);
  assert.deepEqual(await a.rangeFor(vk1), a1);
  // Another agent of the same site (the same folder) finds what the first recorded.
  assert.deepEqual(await new SiteUserRanges(join(dir, 'site-a'), 'ns-a', claims, etc).rangeFor(vk2), a2);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'site-a', 'user-ranges.json'), 'utf8')), { 't1/default/vk1': a1.hostId, 't2/default/vk2': a2.hostId });
  // A block recorded by a site but claimed by another site of the machine is refused, never shared.
  writeFileSync(join(dir, 'site-b', 'user-ranges.json'), JSON.stringify({ 't2/default/vk2': a2.hostId }));
  await assert.rejects(new SiteUserRanges(join(dir, 'site-b'), 'ns-b', claims, etc).rangeFor(vk2), /claimed by another site/);
  await releaseUserRangeClaims('ns-a', claims);
  assert.deepEqual(await new SiteUserRanges(join(dir, 'site-b'), 'ns-b', claims, etc).rangeFor(vk2), a2);
});
