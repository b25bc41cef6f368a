import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/object.js';
import { certificateContents, serviceSelects } from './certificate-contents.js';

const cluster = { tenant: 'acme', namespace: 'shop', name: 'vk1' };
const pod = (spec: Record<string, unknown> = {}, labels: Record<string, string> = { app: 'web', tier: 'front', 'svc.io/siteName': 're-a' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-7d9f-x2', namespace: 'shop', uid: 'uid-1', labels },
  spec: { nodeName: 're-a-n0', ...spec },
});
const service = (name: string, selector: Record<string, string> | null | undefined): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: selector === undefined ? {} : { selector } });

describe('certificateContents', () => {
  it('names the pod in its namespace and site, and every Service selecting it (deduplicated, sorted)', () => {
    const contents = certificateContents({
      cluster,
      site: 're-a',
      pod: pod(),
      services: [service('web', { app: 'web' }), service('front', { tier: 'front', app: 'web' }), service('api', { app: 'api' }), service('headless', undefined), service('all', {}), service('nulls', null)],
    });
    assert.deepEqual(contents.dnsNames, [
      'front',
      'front.shop',
      'front.shop.svc',
      'front.shop.svc.cluster.local',
      'web',
      'web-7d9f-x2.shop',
      'web-7d9f-x2.shop.re-a',
      'web.shop',
      'web.shop.svc',
      'web.shop.svc.cluster.local',
    ]);
  });

  it('puts CN=pod, OU=namespace, O=tenant, L=site in the subject (DER order L, O, OU, CN)', () => {
    assert.deepEqual(certificateContents({ cluster, site: 're-a', pod: pod(), services: [] }).subject, [
      ['L', 're-a'],
      ['O', 'acme'],
      ['OU', 'shop'],
      ['CN', 'web-7d9f-x2'],
    ]);
  });

  it('takes the SPIFFE URI from serviceAccountName, else the deprecated serviceAccount, else default', () => {
    const uri = (spec: Record<string, unknown>): string => certificateContents({ cluster, site: 're-a', pod: pod(spec), services: [] }).uri;
    assert.equal(uri({ serviceAccountName: 'builder' }), 'spiffe://acme/ns/shop/sa/builder');
    assert.equal(uri({ serviceAccount: 'legacy' }), 'spiffe://acme/ns/shop/sa/legacy');
    assert.equal(uri({ serviceAccountName: '', serviceAccount: '' }), 'spiffe://acme/ns/shop/sa/default');
    assert.equal(uri({}), 'spiffe://acme/ns/shop/sa/default');
  });

  it('carries the pod object\'s facts in the workload identity: tenant, vK8s, site, uid, service account, labels', () => {
    assert.deepEqual(certificateContents({ cluster, site: 're-a', pod: pod({ serviceAccountName: 'builder' }), services: [] }).identity, {
      v: 1,
      tenant: 'acme',
      namespace: 'shop',
      vk8s: 'vk1',
      site: 're-a',
      pod: 'web-7d9f-x2',
      podUid: 'uid-1',
      serviceAccount: 'builder',
      labels: { app: 'web', tier: 'front', 'svc.io/siteName': 're-a' },
    });
  });
});

describe('serviceSelects', () => {
  it('matches a selector whose every pair is among the labels; an empty or absent selector selects nothing', () => {
    const labels = { app: 'web', tier: 'front' };
    assert.equal(serviceSelects(service('s', { app: 'web' }), labels), true);
    assert.equal(serviceSelects(service('s', { app: 'web', tier: 'back' }), labels), false);
    assert.equal(serviceSelects(service('s', { zone: 'a' }), labels), false);
    assert.equal(serviceSelects(service('s', {}), labels), false);
    assert.equal(serviceSelects(service('s', undefined), labels), false);
    assert.equal(serviceSelects(service('s', null), labels), false);
  });
});
