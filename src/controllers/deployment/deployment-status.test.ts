import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rs } from './rollout-math.test.js';
import { deploymentStatus, siteStatusJson, type SiteShare, type StatusInput } from './deployment-status.js';

const now = new Date('2024-05-01T12:10:00Z');
const share = (site: string, newAvailable: number, old = 0, placed = true): SiteShare => ({ site, placed, newRS: rs(`web-${site}`, 2, newAvailable), oldRSs: old === 0 ? [] : [rs(`web-old-${site}`, old, old)] });
const input = (shares: SiteShare[], over: Partial<StatusInput> = {}): StatusInput => ({
  name: 'web',
  generation: 3,
  replicas: 2,
  strategy: { type: 'RollingUpdate', maxSurge: '25%', maxUnavailable: '25%' },
  progressDeadlineSeconds: 600,
  shares,
  previous: {},
  conditions: [],
  rollout: true,
  now,
  ...over,
});

describe('deployment status over sites', () => {
  it('deployment status sums the sites and completes when every site runs its replicas', () => {
    const { status } = deploymentStatus(input([share('a', 2), share('b', 2), share('c', 2)]));
    assert.deepEqual({ ...status, conditions: status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]) }, {
      observedGeneration: 3,
      replicas: 6,
      updatedReplicas: 6,
      readyReplicas: 6,
      availableReplicas: 6,
      unavailableReplicas: 0,
      conditions: [
        ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
        ['Progressing', 'True', 'NewReplicaSetAvailable', 'Deployment "web" has successfully progressed.'],
      ],
    });
  });

  it('deployment status is progressing while a site still has old replicas, and unavailable when a site lacks its minimum', () => {
    const { status, requeueAfterMs } = deploymentStatus(input([share('a', 2), share('b', 0, 2)], { previous: { replicas: 4, updatedReplicas: 2 } }));
    assert.equal(status.replicas, 6);
    assert.equal(status.updatedReplicas, 4);
    assert.equal(status.unavailableReplicas, 2);
    assert.deepEqual(status.conditions?.map((c) => [c.type, c.status, c.reason]), [
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'ReplicaSetUpdated'],
    ]);
    assert.equal(requeueAfterMs, 601_000);
    const down = deploymentStatus(input([share('a', 2), share('b', 0)])).status;
    assert.equal(down.conditions?.[0]?.reason, 'MinimumReplicasUnavailable');
  });

  it('deployment status reports ProgressDeadlineExceeded once the deadline passed without progress', () => {
    const stale = { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: '2024-05-01T11:00:00Z', lastTransitionTime: '2024-05-01T11:00:00Z' } as const;
    const previous = { replicas: 2, updatedReplicas: 0, readyReplicas: 2, availableReplicas: 2 };
    const { status } = deploymentStatus(input([{ site: 'a', placed: true, newRS: rs('web-a', 1, 0, { statusReplicas: 0 }), oldRSs: [rs('web-old', 2)] }], { conditions: [stale], previous }));
    assert.deepEqual(status.conditions?.find((c) => c.type === 'Progressing')?.reason, 'ProgressDeadlineExceeded');
  });

  it('deployment site status annotation lists every site in name order', () => {
    assert.deepEqual(siteStatusJson([share('b', 1), share('a', 2, 0, false)], 2), {
      json: '{"a":{"replicas":2,"updatedReplicas":0,"readyReplicas":2,"availableReplicas":2},"b":{"replicas":2,"updatedReplicas":2,"readyReplicas":1,"availableReplicas":1}}',
      omitted: 0,
    });
  });

  it('deployment site status annotation leaves settled sites out when too long, then the last sites', () => {
    const shares = Array.from({ length: 2000 }, (_, i) => share(`site-${String(i).padStart(4, '0')}`, i % 100 === 0 ? 1 : 2));
    const { json, omitted } = siteStatusJson(shares, 2);
    assert.deepEqual(Object.keys(JSON.parse(json) as object), Array.from({ length: 20 }, (_, i) => `site-${String(i * 100).padStart(4, '0')}`));
    assert.equal(omitted, 1980);
    const tight = siteStatusJson(shares, 2, 300);
    assert.equal(Object.keys(JSON.parse(tight.json) as object).length, 3);
    assert.equal(tight.omitted, 1997);
  });

  it('deployment status over an offline site: Available and Progressing count the reachable sites, SitesOffline names the offline one and since when', () => {
    const offline: SiteShare = { ...share('ce-gone', 0), offlineSince: '2024-05-01T12:00:00Z' };
    const { status } = deploymentStatus(input([share('a', 2), offline, share('c', 2)]));
    assert.deepEqual({ ...status, conditions: status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]) }, {
      observedGeneration: 3,
      replicas: 4,
      updatedReplicas: 4,
      readyReplicas: 4,
      availableReplicas: 4,
      unavailableReplicas: 0,
      conditions: [
        ['SitesOffline', 'True', 'SitesUnreachable', '1 site(s) offline, their replicas deferred until they return: ce-gone (offline since 2024-05-01T12:00:00Z); status counts the 2 reachable site(s)'],
        ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
        ['Progressing', 'True', 'NewReplicaSetAvailable', 'Deployment "web" has successfully progressed.'],
      ],
    });
    const breakdown = JSON.parse(siteStatusJson([share('a', 2), offline], 2).json) as Record<string, unknown>;
    assert.deepEqual(breakdown['ce-gone'], { replicas: 2, updatedReplicas: 2, readyReplicas: 0, availableReplicas: 0, offlineSince: '2024-05-01T12:00:00Z' });
    const alone = deploymentStatus(input([offline])).status;
    assert.deepEqual(alone.conditions?.find((c) => c.type === 'Available')?.status, 'False', 'no reachable site: not available');
    assert.equal(alone.conditions?.find((c) => c.type === 'Progressing'), undefined, 'nor progressed: nothing to judge by');
    const back = deploymentStatus(input([share('a', 2), share('ce-gone', 2)], { conditions: status.conditions ?? [] })).status;
    assert.deepEqual(back.conditions?.find((c) => c.type === 'SitesOffline'), { type: 'SitesOffline', status: 'False', reason: 'AllSitesReachable', message: 'Every site of the Deployment is reachable.', lastUpdateTime: '2024-05-01T12:10:00Z', lastTransitionTime: '2024-05-01T12:10:00Z' });
  });
});
