import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AddressesExhaustedError, AddressLeases } from './address-leases.js';
import { formatAddress, parseCidr } from './ipv4-cidr.js';

const dir = mkdtempSync(join(tmpdir(), 'address-leases-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a pod keeps its address, a freed one is not reused at once, and a full network says so', async () => {
  const leases = new AddressLeases(join(dir, 'a'), parseCidr('10.1.2.0/29'));
  const [a, b] = [randomUUID(), randomUUID()];
  const first = await leases.lease(a);
  assert.equal(formatAddress(first), '10.1.2.2');
  assert.equal(await leases.lease(a), first);
  assert.equal(formatAddress(await leases.lease(b)), '10.1.2.3');
  await leases.release(a);
  const c = await leases.lease(randomUUID());
  assert.equal(formatAddress(c), '10.1.2.4');
  await leases.lease(randomUUID());
  await leases.lease(randomUUID());
  assert.equal(formatAddress(await leases.lease(randomUUID())), '10.1.2.2'); // wrapped round to the freed one
  await assert.rejects(leases.lease(randomUUID()), AddressesExhaustedError);
});

test('leases survive a restart and concurrent allocations never share an address', async () => {
  const cidr = parseCidr('10.1.3.0/27');
  const uids = Array.from({ length: 20 }, () => randomUUID());
  const addresses = await Promise.all(uids.map((uid, i) => new AddressLeases(join(dir, 'b'), cidr).lease(uid).then((x) => [i, x] as const)));
  assert.equal(new Set(addresses.map(([, x]) => x)).size, 20);
  const again = new AddressLeases(join(dir, 'b'), cidr);
  for (const [i, address] of addresses) assert.equal(await again.lease(uids[i] as string), address);
});
