import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalImageName, familiarImageName, ImageReferenceError, parseImageReference } from './image-reference.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

test('Docker Hub names are normalised as Docker does: library/, docker.io and latest filled in', () => {
  for (const name of ['busybox', 'busybox:latest', 'library/busybox', 'docker.io/library/busybox:latest', 'index.docker.io/library/busybox']) {
    assert.equal(canonicalImageName(parseImageReference(name)), 'docker.io/library/busybox:latest', name);
  }
  assert.equal(canonicalImageName(parseImageReference('team/app:1.2')), 'docker.io/team/app:1.2');
});

test('a registry host is kept, with its port; localhost counts as a host', () => {
  assert.deepEqual(parseImageReference('registry.example:5000/team/app:v1'), { repository: 'registry.example:5000/team/app', tag: 'v1' });
  assert.deepEqual(parseImageReference('localhost/app'), { repository: 'localhost/app', tag: 'latest' });
});

test('a digest pins the manifest and takes the place of latest', () => {
  assert.deepEqual(parseImageReference(`busybox@${DIGEST}`), { repository: 'docker.io/library/busybox', digest: DIGEST });
  assert.deepEqual(parseImageReference(`busybox:1.35@${DIGEST}`), { repository: 'docker.io/library/busybox', tag: '1.35', digest: DIGEST });
});

test('familiar names leave out Docker Hub and library/ only', () => {
  assert.equal(familiarImageName(parseImageReference('docker.io/library/busybox')), 'busybox:latest');
  assert.equal(familiarImageName(parseImageReference('docker.io/team/app:2')), 'team/app:2');
  assert.equal(familiarImageName(parseImageReference('ghcr.io/library/x:1')), 'ghcr.io/library/x:1');
});

test('invalid names are refused with the reason', () => {
  for (const [name, why] of [
    ['', /empty/],
    ['BusyBox', /name component/],
    ['busybox:', /not a tag/],
    ['busybox@sha256:abc', /sha256 digest/],
    ['a//b', /name component/],
    ['../etc', /registry host/],
  ] as const) {
    assert.throws(() => parseImageReference(name), (error: unknown) => error instanceof ImageReferenceError && why.test(error.message), name);
  }
});
