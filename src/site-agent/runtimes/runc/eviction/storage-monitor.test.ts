import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { PodSpec } from '../../../../api/pod-spec-types.js';
import { createLogger } from '../../../../observability/logger.js';
import { StorageMonitor, type StoragePod } from './storage-monitor.js';

const Mi = 1024 * 1024;

describe('the ephemeral storage checks of a site\'s pods', () => {
  const dir = mkdtempSync(join(tmpdir(), 'storage-monitor-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const timers = { now: () => 0, schedule: () => () => undefined };
  const logger = createLogger({ level: 'silent' });

  /** A pod with one container `c` whose folder holds `containerBytes` and an emptyDir `data` holding `volumeBytes`. */
  function pod(name: string, spec: PodSpec, containerBytes: number, volumeBytes = 0, site = 's1'): StoragePod & { evicted: string[] } {
    const containerDir = join(dir, name, 'containers', 'c');
    const volumeDir = join(dir, name, 'volumes', 'data');
    mkdirSync(containerDir, { recursive: true });
    mkdirSync(volumeDir, { recursive: true });
    writeFileSync(join(containerDir, 'written'), Buffer.alloc(containerBytes, 1));
    writeFileSync(join(volumeDir, 'written'), Buffer.alloc(volumeBytes, 1));
    const evicted: string[] = [];
    return { key: name, site, spec, containers: new Map([['c', containerDir]]), volumes: new Map([['data', volumeDir]]), evict: (message) => evicted.push(message), evicted };
  }
  const withVolume = (sizeLimit?: string, limit?: string): PodSpec => ({
    containers: [{ name: 'c', image: 'i', ...(limit === undefined ? {} : { resources: { limits: { 'ephemeral-storage': limit } } }) }],
    volumes: [{ name: 'data', emptyDir: sizeLimit === undefined ? {} : { sizeLimit } }],
  });

  it('evicts each pod over its own limits, and no pod within them', async () => {
    const overDir = pod('over-dir', withVolume('1Mi'), 0, 2 * Mi);
    const overLayer = pod('over-layer', withVolume(undefined, '1Mi'), 2 * Mi);
    const within = pod('within', withVolume('4Mi', '8Mi'), Mi, Mi);
    const monitor = new StorageMonitor({ timers, logger, intervalMs: 1000, entriesPerWalk: 100, pods: () => [overDir, overLayer, within] });
    await monitor.check();
    assert.deepEqual(overDir.evicted, ['Usage of EmptyDir volume "data" exceeds the limit "1Mi". ']);
    assert.deepEqual(overLayer.evicted, ['Pod ephemeral local storage usage exceeds the total limit of containers 1Mi. ']);
    assert.deepEqual(within.evicted, []);
    monitor.close();
  });

  it('evicts the one pod kubelet would pick when a site\'s pods pass its cap, and none on another site', async () => {
    const heavy = pod('heavy', withVolume(), 3 * Mi, Mi);
    const light = pod('light', withVolume(), Mi);
    const elsewhere = pod('elsewhere', withVolume(), 6 * Mi, 0, 's2');
    const monitor = new StorageMonitor({ timers, logger, intervalMs: 1000, entriesPerWalk: 100, siteCapBytes: 5 * Mi, pods: () => [heavy, light, elsewhere] });
    await monitor.check();
    assert.equal(heavy.evicted.length, 1);
    assert.match(heavy.evicted[0] ?? '', /^The node was low on resource: ephemeral-storage\. Container c was using 3\d{3}Ki, which exceeds its request of 0\. $/);
    assert.deepEqual(light.evicted, []);
    assert.equal(elsewhere.evicted.length, 1, 's2 is over its own cap of 5Mi');
    monitor.close();
  });
});
