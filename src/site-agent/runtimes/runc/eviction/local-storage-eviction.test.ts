import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { localEphemeralVolumes, localStorageEviction, podUsageBytes, siteStorageEviction, type PodStorageUsage } from './local-storage-eviction.js';

const Mi = 1024 * 1024;
const SIDECAR = 'edgeplane-sidecar';

type Resources = { limits?: Record<string, string>; requests?: Record<string, string> };
const container = (name: string, resources?: Resources): Container => ({ name, image: 'i', ...(resources === undefined ? {} : { resources }) });
const usage = (containers: Record<string, number>, volumes: Record<string, number> = {}): PodStorageUsage => ({
  containers: new Map(Object.entries(containers)),
  volumes: new Map(Object.entries(volumes)),
});

describe('kubelet\'s local storage eviction of one pod', () => {
  it('evicts a pod whose emptyDir holds more than its sizeLimit, with kubelet\'s message (trailing space included)', () => {
    const spec: PodSpec = { containers: [container('c')], volumes: [{ name: 'data', emptyDir: { sizeLimit: '10Mi' } }] };
    assert.equal(localStorageEviction(spec, usage({ c: 0 }, { data: 10 * Mi })), undefined, 'at the limit is within it');
    assert.equal(localStorageEviction(spec, usage({ c: 0 }, { data: 10 * Mi + 4096 })), 'Usage of EmptyDir volume "data" exceeds the limit "10Mi". ');
    // The limit is printed as the quantity's canonical form, as Quantity.String() prints it.
    const decimal: PodSpec = { containers: [container('c')], volumes: [{ name: 'x', emptyDir: { sizeLimit: '10240Ki' } }] };
    assert.equal(localStorageEviction(decimal, usage({}, { x: 11 * Mi })), 'Usage of EmptyDir volume "x" exceeds the limit "10Mi". ');
  });

  it('ignores an emptyDir without a positive sizeLimit and one not measured (medium: Memory is a tmpfs of that size)', () => {
    const spec: PodSpec = { containers: [container('c')], volumes: [{ name: 'a', emptyDir: {} }, { name: 'm', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } }, { name: 'z', emptyDir: { sizeLimit: '0' } }] };
    assert.equal(localStorageEviction(spec, usage({ c: 0 }, { a: 500 * Mi, z: 1 })), undefined);
  });

  it('evicts a pod whose containers\' folders and local volumes together pass the sum of its containers\' limits', () => {
    const spec: PodSpec = {
      containers: [container('a', { limits: { 'ephemeral-storage': '10Mi' } }), container('b', { limits: { 'ephemeral-storage': '5Mi' } })],
      volumes: [{ name: 'data', emptyDir: {} }],
    };
    assert.equal(localStorageEviction(spec, usage({ a: 5 * Mi, b: 5 * Mi }, { data: 5 * Mi })), undefined, '15Mi of 15Mi');
    assert.equal(localStorageEviction(spec, usage({ a: 5 * Mi, b: 5 * Mi }, { data: 5 * Mi + 1 })), 'Pod ephemeral local storage usage exceeds the total limit of containers 15Mi. ');
  });

  it('takes the pod\'s limit as the largest init container\'s when that is larger, and finds none when no container has one', () => {
    const spec: PodSpec = { initContainers: [container('init', { limits: { 'ephemeral-storage': '20Mi' } })], containers: [container('c', { limits: { 'ephemeral-storage': '10Mi' } })] };
    assert.equal(localStorageEviction(spec, usage({ init: 0, c: 15 * Mi })), 'Container c exceeded its local ephemeral storage limit "10Mi". ', 'the pod is within 20Mi; its container is not');
    assert.equal(localStorageEviction(spec, usage({ init: 6 * Mi, c: 15 * Mi })), 'Pod ephemeral local storage usage exceeds the total limit of containers 20Mi. ');
    assert.equal(localStorageEviction({ containers: [container('c')] }, usage({ c: 900 * Mi })), undefined);
  });

  it('checks in kubelet\'s order: emptyDir, then the pod, then each container', () => {
    const spec: PodSpec = { containers: [container('c', { limits: { 'ephemeral-storage': '10Mi' } })], volumes: [{ name: 'data', emptyDir: { sizeLimit: '1Mi' } }] };
    assert.match(localStorageEviction(spec, usage({ c: 20 * Mi }, { data: 2 * Mi })) ?? '', /^Usage of EmptyDir volume "data"/);
    assert.match(localStorageEviction(spec, usage({ c: 20 * Mi }, { data: 0 })) ?? '', /^Pod ephemeral local storage usage/);
  });

  it('leaves the injected sidecar out: its bytes and limits count for no pod', () => {
    const spec: PodSpec = { containers: [container('c', { limits: { 'ephemeral-storage': '10Mi' } }), container(SIDECAR, { limits: { 'ephemeral-storage': '1Mi' } })] };
    assert.equal(localStorageEviction(spec, usage({ c: 9 * Mi, [SIDECAR]: 50 * Mi })), undefined);
    assert.equal(podUsageBytes(usage({ c: 9 * Mi, [SIDECAR]: 50 * Mi }, { v: Mi })), 10 * Mi);
  });

  it('measures emptyDir on disk and configMap volumes; memory emptyDir, secrets, projected, downwardAPI and claims are not local ephemeral storage on disk', () => {
    const spec: PodSpec = {
      containers: [],
      volumes: [
        { name: 'disk', emptyDir: {} },
        { name: 'bare' },
        { name: 'mem', emptyDir: { medium: 'Memory' } },
        { name: 'cm', configMap: { name: 'x' } },
        { name: 's', secret: { secretName: 'x' } },
        { name: 'd', downwardAPI: {} },
        { name: 'pvc', persistentVolumeClaim: { claimName: 'x' } },
      ],
    };
    assert.deepEqual(localEphemeralVolumes(spec).map((v) => v.name), ['disk', 'bare', 'cm']);
  });
});

describe('kubelet\'s disk-pressure eviction on a site over its cap', () => {
  const pod = (key: string, spec: PodSpec, used: PodStorageUsage) => ({ key, spec, usage: used });

  it('evicts nothing while the site\'s pods hold no more than the cap, the sidecars\' bytes counted', () => {
    const pods = [pod('a', { containers: [container('c')] }, usage({ c: 30 * Mi, [SIDECAR]: 10 * Mi }))];
    assert.equal(siteStorageEviction(pods, 40 * Mi), undefined);
    assert.notEqual(siteStorageEviction(pods, 40 * Mi - 1), undefined);
  });

  it('picks pods over their requests first, then the lowest priority, then the most bytes above the request, with kubelet\'s message', () => {
    const big = pod('big', { containers: [container('c', { requests: { 'ephemeral-storage': '100Mi' } })] }, usage({ c: 90 * Mi }));
    const small = pod('small', { containers: [container('c'), container(SIDECAR)] }, usage({ c: 3 * Mi, [SIDECAR]: 12288 }));
    const chosen = siteStorageEviction([big, small], 50 * Mi);
    assert.deepEqual(chosen, { key: 'small', message: 'The node was low on resource: ephemeral-storage. Container c was using 3Mi, which exceeds its request of 0. ' });
    const important = pod('important', { priority: 1000, containers: [container('c')] }, usage({ c: 200 * Mi }));
    const ordinary = pod('ordinary', { containers: [container('c')] }, usage({ c: 10 * Mi }));
    assert.equal(siteStorageEviction([important, ordinary], 100 * Mi)?.key, 'ordinary', 'the lower priority goes first');
    const larger = pod('larger', { containers: [container('c', { requests: { 'ephemeral-storage': '1Mi' } }), container('d')] }, usage({ c: 30 * Mi + 5, d: 4096 }, { data: 10 * Mi }));
    const chosenLarger = siteStorageEviction([ordinary, larger], 20 * Mi);
    assert.equal(chosenLarger?.key, 'larger');
    assert.equal(chosenLarger?.message, 'The node was low on resource: ephemeral-storage. Container c was using 31457285, which exceeds its request of 1Mi. Container d was using 4Ki, which exceeds its request of 0. ');
  });
});
