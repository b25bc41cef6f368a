import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger } from '../../../../observability/logger.js';
import type { PlacedObjects } from '../../../site-api-client.js';
import { claimFolder } from './claim-folder.js';
import { recordClaimFolders } from './claim-folder-use.js';
import { ClaimFolderSweeper, sweepDecision } from './claim-folder-sweep.js';
import { VolumeError } from './volume-error.js';

const uid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const folder = (n: number): string => `pvc-${uid(n)}`;
const claim = (n: number, sites: string[], phase = 'Bound'): PlacedObjects['items'][number] => ({
  cluster: { tenant: 't', namespace: 'default', name: 'vk' },
  sites,
  object: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: `c${n}`, uid: uid(n) }, status: { phase } },
});

describe('claim folders', () => {
  it('a pod\'s claim is the folder pvc-<uid>, once the claim is placed on the pod\'s site and Bound', () => {
    assert.equal(claimFolder('c1', claim(1, ['a']), 'a'), folder(1));
    assert.throws(() => claimFolder('c1', undefined, 'a'), new VolumeError('persistentvolumeclaim "c1" not found'));
    assert.throws(() => claimFolder('c1', claim(1, ['b']), 'a'), /is not placed on site "a"/);
    assert.throws(() => claimFolder('c1', claim(1, ['a'], 'Pending'), 'a'), new VolumeError('persistentvolumeclaim "c1" is not bound (phase "Pending")'));
  });

  it('sweep decision: only a claim folder neither placed nor used, seen so twice, is removed', () => {
    const view = { present: [folder(1), folder(2), folder(3), 'default', 'pvc-data'], placed: new Set([folder(1)]), inUse: new Set([folder(2)]) };
    const first = sweepDecision({ ...view, candidates: new Set() });
    assert.deepEqual(first, { remove: [], candidates: new Set([folder(3)]) });
    assert.deepEqual(sweepDecision({ ...view, candidates: first.candidates }).remove, [folder(3)]);
    assert.deepEqual(sweepDecision({ ...view, placed: new Set([folder(1), folder(3)]), candidates: first.candidates }).remove, [], 'placed again meanwhile');
  });
});

describe('ClaimFolderSweeper over folders', () => {
  const root = mkdtempSync(join(tmpdir(), 'claim-sweep-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const pvRoot = join(root, 'pv');
  const podsDir = join(root, 'pods');

  it('removes a gone claim\'s folder at the second sweep, never a placed or used one, and nothing when the list fails', async () => {
    for (const n of [1, 2, 3]) {
      mkdirSync(join(pvRoot, folder(n)), { recursive: true });
      writeFileSync(join(pvRoot, folder(n), 'data'), `claim ${n}`);
    }
    mkdirSync(join(pvRoot, 'default', 'old-layout'), { recursive: true });
    mkdirSync(join(podsDir, 'pod-a'), { recursive: true });
    await recordClaimFolders(join(podsDir, 'pod-a'), [folder(2)]);
    await recordClaimFolders(join(podsDir, 'pod-a'), [folder(2)]);
    let items = [claim(1, ['a']), claim(3, ['a'])];
    let failing = false;
    const list = (): Promise<PlacedObjects> => (failing ? Promise.reject(new Error('site API down')) : Promise.resolve({ resourceVersion: '1', items }));
    const sweeper = new ClaimFolderSweeper([{ name: 'a', pvRoot, podsDir }], list, createLogger({ level: 'silent' }));
    assert.deepEqual(await sweeper.sweep(), []);
    items = [claim(1, ['a'])];
    assert.deepEqual(await sweeper.sweep(), [], 'claim 3 seen gone once');
    failing = true;
    await assert.rejects(sweeper.sweep(), /site API down/);
    failing = false;
    assert.deepEqual(await sweeper.sweep(), [join('a', folder(3))]);
    assert.equal(existsSync(join(pvRoot, folder(3))), false);
    for (const kept of [folder(1), folder(2), 'default/old-layout']) assert.ok(existsSync(join(pvRoot, kept)), kept);

    rmSync(join(podsDir, 'pod-a'), { recursive: true });
    await sweeper.sweep();
    assert.deepEqual(await sweeper.sweep(), [join('a', folder(2))], 'once its pod is gone');
    assert.ok(existsSync(join(pvRoot, folder(1), 'data')));
  });
});
