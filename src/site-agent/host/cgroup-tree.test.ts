import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sitePidsCeiling } from './cgroup-tree.js';

test("a site's pods may hold the host's pid_max less a reserve of an eighth, at least 4096", () => {
  assert.equal(sitePidsCeiling(32_768), 28_672);
  assert.equal(sitePidsCeiling(4_194_304), 4_194_304 - 524_288);
  assert.equal(sitePidsCeiling(6_000), 1_904);
  assert.equal(sitePidsCeiling(4_096), 1_024, 'a tiny host still runs a few pods');
});
