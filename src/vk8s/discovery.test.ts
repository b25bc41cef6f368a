import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiGroupList, apiResourceList, apiVersions } from './discovery.js';

type Entry = { name: string; verbs: string[]; kind: string; shortNames?: string[]; categories?: string[]; group?: string; version?: string; namespaced: boolean; singularName: string };
const list = (group: string, version: string): Entry[] => (apiResourceList(group, version)?.['resources'] as Entry[] | undefined) ?? [];
const find = (group: string, version: string, name: string): Entry | undefined => list(group, version).find((e) => e.name === name);

describe('discovery', () => {
  it('serves the groups and versions of the seed: core v1, apps/v1, batch/v1, batch/v1beta1', () => {
    assert.deepEqual(apiVersions('127.0.0.1:6443')['versions'], ['v1']);
    const groups = apiGroupList()['groups'] as Array<{ name: string; versions: Array<{ groupVersion: string }>; preferredVersion: { groupVersion: string } }>;
    assert.deepEqual(groups.map((g) => [g.name, g.versions.map((v) => v.groupVersion), g.preferredVersion.groupVersion]), [
      ['apps', ['apps/v1'], 'apps/v1'],
      ['batch', ['batch/v1', 'batch/v1beta1'], 'batch/v1'],
    ]);
    assert.equal(apiResourceList('extensions', 'v1beta1'), undefined);
  });

  it('lists exactly the seed\'s operations as verbs, with short names, categories and subresources', () => {
    assert.deepEqual(find('apps', 'v1', 'deployments')?.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.deepEqual(find('apps', 'v1', 'deployments/status')?.verbs, ['get']);
    assert.deepEqual(find('apps', 'v1', 'replicasets')?.verbs, ['get', 'list', 'watch']);
    assert.deepEqual(find('', 'v1', 'services')?.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], 'no deletecollection for services');
    assert.deepEqual(find('batch', 'v1beta1', 'cronjobs/status')?.verbs, ['get', 'patch', 'update']);
    assert.deepEqual(find('', 'v1', 'pods/exec')?.verbs, ['create', 'get']);
    assert.equal(find('', 'v1', 'pods/exec')?.kind, 'PodExecOptions');
    assert.deepEqual(find('', 'v1', 'pods/log')?.verbs, ['get']);
    assert.deepEqual(find('', 'v1', 'namespaces')?.namespaced, false);
    for (const [group, version, name, shortName] of [['', 'v1', 'pods', 'po'], ['', 'v1', 'services', 'svc'], ['apps', 'v1', 'deployments', 'deploy'], ['batch', 'v1beta1', 'cronjobs', 'cj'], ['', 'v1', 'persistentvolumeclaims', 'pvc']] as const) {
      assert.deepEqual(find(group, version, name)?.shortNames, [shortName]);
    }
    assert.deepEqual(find('', 'v1', 'pods')?.categories, ['all']);
    assert.equal(find('', 'v1', 'configmaps')?.categories, undefined);
    assert.equal(find('', 'v1', 'configmaps')?.singularName, '');
  });

  it('marks */scale with autoscaling/v1 Scale, or kubectl scale fails', () => {
    for (const name of ['deployments/scale', 'statefulsets/scale', 'replicasets/scale']) {
      const scale = find('apps', 'v1', name);
      assert.deepEqual([scale?.group, scale?.version, scale?.kind], ['autoscaling', 'v1', 'Scale'], name);
    }
    assert.deepEqual(find('apps', 'v1', 'replicasets/scale')?.verbs, ['get']);
  });
});
