import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import { fakeTimers } from '../common/testing/fake-timers.js';
import { x509 } from '../common/x509.js';
import { SidecarDriver } from './sidecar-driver.js';
import { sidecarPolicy } from './sidecar-policy.js';
import type { SidecarStateName } from './sidecar-state.js';
import { driveFakeTime } from './testing/drive-fake-time.js';
import { FakeIdentityIssuer } from './testing/fake-identity-issuer.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const folders: string[] = [];
after(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-driver-'));
  folders.push(dir);
  return join(dir, 'identity');
}

async function setUp(options: { lifetimeMs?: number; retryBudgetMs?: number; identityDir?: string } = {}) {
  const timers = fakeTimers();
  const start = timers.now();
  const issuer = await FakeIdentityIssuer.create(() => timers.now(), options.lifetimeMs ?? HOUR);
  const identityDir = options.identityDir ?? folder();
  const driver = new SidecarDriver({
    issuer,
    identityDir,
    policy: sidecarPolicy({ retryBudgetMs: options.retryBudgetMs ?? 2 * MINUTE }),
    timers,
    random: () => 0.5,
    logger: createLogger({ level: 'silent' }),
  });
  const kinds: SidecarStateName[] = [driver.current().kind];
  driver.onChange((state, previous) => {
    if (state.kind !== previous.kind) kinds.push(state.kind);
  });
  const until = (ms: number) => driveFakeTime(timers, start + ms, () => driver.settled());
  return { timers, start, issuer, driver, identityDir, kinds, until };
}

function leafSerial(pem: string): string {
  return new x509.X509Certificate(pem).serialNumber;
}

describe('sidecar driver', () => {
  it('sidecar driver lives initialize → renew → degrade → recover → halt in fake time', async () => {
    const { issuer, driver, identityDir, kinds, until, start } = await setUp();
    const began = performance.now();

    driver.start();
    assert.equal(driver.current().kind, 'INITIALIZING');
    assert.equal(driver.identity(), undefined);
    await until(0);
    assert.equal(driver.current().kind, 'READY', 'the first bootstrap happens at once');
    const first = driver.identity();
    assert.ok(first !== undefined);
    assert.equal(readFileSync(join(identityDir, 'client.crt'), 'utf8'), first.clientCertificate + first.chain);
    assert.equal(statSync(join(identityDir, 'client.key')).mode & 0o777, 0o600);

    // Issued at 0 with notAfter 60 min: renewal at half of it (random 0.5 puts it in the middle).
    await until(29 * MINUTE);
    assert.equal(issuer.count('renew', 'issued'), 0);
    await until(30 * MINUTE);
    assert.equal(issuer.count('renew', 'issued'), 1);
    const second = driver.identity();
    assert.ok(second !== undefined);
    assert.notEqual(leafSerial(second.clientCertificate), leafSerial(first.clientCertificate));
    assert.notEqual(second.clientKey, first.clientKey, 'every renewal makes new key pairs');
    assert.equal(readFileSync(join(identityDir, 'server.key'), 'utf8'), second.serverKey);

    // The service goes away before the next renewal (at 60 min). The identity (notBefore
    // 25 min, notAfter 90 min) enters its expiry window at 90 − 0.2·65 = 77 min.
    issuer.available = false;
    await until(76 * MINUTE);
    assert.equal(driver.current().kind, 'READY', 'failed renewals outside the window do not degrade');
    assert.ok(issuer.count('renew', 'unavailable') >= 5, 'retried with back-off');
    await until(77 * MINUTE);
    assert.equal(driver.current().kind, 'DEGRADED');
    assert.equal(driver.identity(), second, 'DEGRADED still serves the current identity');
    assert.equal(readFileSync(join(identityDir, 'client.crt'), 'utf8'), second.clientCertificate + second.chain, 'and its files stay as they were');

    issuer.available = true;
    await until(78 * MINUTE + 1);
    assert.equal(driver.current().kind, 'READY', 'a renewal within the longest back-off recovers');
    const third = driver.identity();
    assert.ok(third !== undefined && third !== second);

    // The service goes away for good: the renewal of this identity (60 min, 78 → 138 min) fails,
    // it degrades in its window (125 min) and expires unrenewed.
    issuer.available = false;
    const expiry = third.validity.notAfter - start;
    await until(expiry - 1000);
    assert.equal(driver.current().kind, 'DEGRADED');
    await until(expiry);
    assert.deepEqual({ kind: driver.current().kind, reason: (driver.current() as { reason?: string }).reason }, { kind: 'HALTED', reason: 'IDENTITY_EXPIRED' });
    assert.equal(driver.identity(), undefined, 'HALTED serves nothing');
    const calls = issuer.calls.length;
    issuer.available = true;
    await until(expiry + 10 * HOUR);
    assert.equal(issuer.calls.length, calls, 'HALTED is terminal: no more requests');
    assert.equal(driver.current().kind, 'HALTED');

    assert.deepEqual(kinds, ['INITIALIZING', 'READY', 'DEGRADED', 'READY', 'DEGRADED', 'HALTED']);
    await driver.stop();
    assert.ok(performance.now() - began < 5000, `the life took ${Math.round(performance.now() - began)} ms of real time`);
  });

  it('sidecar driver halts when bootstrap fails for the whole retry budget, retrying with back-off', async () => {
    const { issuer, driver, until, kinds } = await setUp({ retryBudgetMs: 2 * MINUTE });
    issuer.available = false;
    driver.start();
    await until(2 * MINUTE - 1);
    assert.equal(driver.current().kind, 'INITIALIZING');
    // Attempts at 0, 1, 3, 7, 15, 31, 63 s; the next (123 s) is past the budget.
    assert.deepEqual(issuer.calls.map((c) => c.at - issuer.calls[0]!.at), [0, 1000, 3000, 7000, 15_000, 31_000, 63_000]);
    await until(2 * MINUTE);
    assert.deepEqual(kinds, ['INITIALIZING', 'HALTED']);
    assert.match((driver.current() as { lastError?: string }).lastError ?? '', /ECONNREFUSED/);
    await driver.stop();
  });

  it('sidecar driver resumes from the files of an earlier run without a bootstrap', async () => {
    const earlier = await setUp();
    earlier.driver.start();
    await earlier.until(0);
    await earlier.driver.stop();
    const later = await setUp({ identityDir: earlier.identityDir });
    later.driver.start();
    assert.equal(later.driver.current().kind, 'READY', 'READY at start, before any request');
    assert.equal(later.driver.identity()?.clientKey, earlier.driver.identity()?.clientKey);
    assert.equal(later.issuer.calls.length, 0);
    await later.driver.stop();
  });

  it('sidecar driver bootstraps when the files left behind are expired or broken', async () => {
    const earlier = await setUp();
    earlier.driver.start();
    await earlier.until(0);
    await earlier.driver.stop();
    writeFileSync(join(earlier.identityDir, 'client.key'), readFileSync(join(earlier.identityDir, 'server.key')));
    const later = await setUp({ identityDir: earlier.identityDir });
    later.driver.start();
    assert.equal(later.driver.current().kind, 'INITIALIZING', 'a key that does not match its certificate is not resumed');
    await later.until(0);
    assert.equal(later.issuer.count('bootstrap', 'issued'), 1);
    await later.driver.stop();
  });

  it('sidecar driver counts files it cannot write as a failed attempt', async () => {
    const parent = folder();
    writeFileSync(parent.replace(/identity$/, 'not-a-folder'), 'x');
    const { driver, until } = await setUp({ identityDir: join(parent.replace(/identity$/, 'not-a-folder'), 'identity') });
    driver.start();
    await until(0);
    const state = driver.current();
    assert.equal(state.kind, 'INITIALIZING');
    assert.match((state as { lastError?: string }).lastError ?? '', /ENOTDIR/);
    await driver.stop();
  });

  it('sidecar driver stops planning after stop()', async () => {
    const { timers, driver, until } = await setUp();
    driver.start();
    await until(0);
    await driver.stop();
    assert.deepEqual(timers.pending(), []);
  });
});
