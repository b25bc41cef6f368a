import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { CertificatePrincipal } from '../auth/credentials.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import { fakeClock } from '../common/clock.js';
import type { KubeObject } from '../apimachinery/object.js';
import { BootstrapTokens } from './bootstrap-tokens.js';
import { certificateContents } from './certificate-contents.js';
import { verifyCsr } from './csr-verification.js';
import { inProcessCsrVerifier } from './csr-verifier-pool.js';
import type { IdentityBundle } from '../site-api/identity-bundle.js';
import { IdentityError, type IdentityErrorCode } from './identity-error.js';
import { readWorkloadIdentity } from './identity-extension.js';
import { IdentityService, type IdentityServiceDependencies } from './identity-service.js';
import { issueLeafCertificates } from './leaf-certificates.js';
import { startIdentityFixture, type IdentityFixture } from './testing/identity-fixture.js';
import { makeTestCsr } from './testing/test-csr.js';
import { loadTokenSigningKey } from './token-signing-key.js';

const START = new Date('2026-03-01T12:00:00Z');
const HOUR_MS = 3600 * 1000;
const ACME: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };
const GLOBEX: ClusterRef = { tenant: 'globex', namespace: 'default', name: 'vk1' };

function pod(name: string, uid: string, site: string | undefined, bound = true): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, uid, labels: { app: name, ...(site === undefined ? {} : { 'svc.io/siteName': site }) } }, spec: bound ? { nodeName: `${site ?? 'x'}-n0` } : {} };
}

const admin = (roles: CertificatePrincipal['roles'], virtualK8s?: CertificatePrincipal['virtualK8s']): CertificatePrincipal => ({ tenant: 'acme', user: 'ops@acme', credential: 'ops-token', roles, ...(virtualK8s === undefined ? {} : { virtualK8s }) });

describe('IdentityService', () => {
  const clock = fakeClock(START);
  let fixture: IdentityFixture;
  let service: IdentityService;
  let deps: IdentityServiceDependencies;
  let tokens: BootstrapTokens;
  const pods = new Map<string, KubeObject>();
  const audited: Array<{ cluster: ClusterRef; pod: string; user: string; expiresAt: string }> = [];
  const key = (c: ClusterRef, name: string): string => `${c.tenant}/${c.namespace}/${c.name}/${name}`;
  const put = (c: ClusterRef, object: KubeObject): void => void pods.set(key(c, object.metadata.name ?? ''), object);
  const csrs = (): { serverCsr: string; clientCsr: string } => ({ serverCsr: makeTestCsr().pem, clientCsr: makeTestCsr().pem });
  const fails = (code: IdentityErrorCode, message: RegExp) => (error: unknown): boolean => error instanceof IdentityError && error.code === code && message.test(error.message);
  const tokenFor = async (c: ClusterRef, name: string, uid: string, site: string, ttl = 600): Promise<string> =>
    (await tokens.sign({ tenant: c.tenant, namespace: c.namespace, vk8s: c.name, site, pod: { name, uid } }, ttl)).token;

  before(async () => {
    fixture = await startIdentityFixture(clock);
    tokens = new BootstrapTokens(await loadTokenSigningKey({ store: fixture.store, kek: fixture.kek, clock }), clock, 'sha256:00');
    deps = {
      authorities: fixture.authorities,
      tokens,
      workloads: {
        pod: (c, name) => Promise.resolve(pods.get(key(c, name))),
        services: (c) => (c.tenant === 'acme' ? [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web-1' } } }] : []),
      },
      audit: {
        tokenIssued: (cluster, object, principal, expiresAt) => {
          audited.push({ cluster, pod: object.metadata.name ?? '', user: principal.user, expiresAt: expiresAt.toISOString() });
          return Promise.resolve();
        },
      },
      csrs: inProcessCsrVerifier(),
      clock,
      lifetimeMs: HOUR_MS,
    };
    service = new IdentityService(deps);
  });
  beforeEach(() => {
    pods.clear();
    put(ACME, pod('web-1', 'uid-1', 're-a'));
    put(GLOBEX, pod('api-1', 'uid-g', 're-b'));
  });
  after(async () => {
    await fixture?.close();
  });

  describe('issuance with a bootstrap token', () => {
    it('issues the pod\'s certificates from the pod object', async () => {
      const bundle = await service.issueWithToken(await tokenFor(ACME, 'web-1', 'uid-1', 're-a'), csrs());
      const identity = readWorkloadIdentity(new X509Certificate(bundle.clientCertificate).raw);
      assert.deepEqual(identity, { v: 1, tenant: 'acme', namespace: 'default', vk8s: 'vk1', site: 're-a', pod: 'web-1', podUid: 'uid-1', serviceAccount: 'default', labels: { app: 'web-1', 'svc.io/siteName': 're-a' } });
      assert.match(new X509Certificate(bundle.serverCertificate).subjectAltName ?? '', /DNS:web\.default\.svc\.cluster\.local/);
      assert.equal(bundle.notAfter, '2026-03-01T13:00:00Z');
    });

    it('gives pods on customer edges their own lifetime when one is set (how long they keep an identity offline)', async () => {
      const edges = new IdentityService({
        ...deps,
        customerEdgeLifetimeMs: 3 * HOUR_MS,
        siteTypeOf: (site) => (site === 'ce-1' ? 'CUSTOMER_EDGE' : 'REGIONAL_EDGE'),
      });
      put(ACME, pod('edge-1', 'uid-e', 'ce-1'));
      assert.equal((await edges.issueWithToken(await tokenFor(ACME, 'edge-1', 'uid-e', 'ce-1'), csrs())).notAfter, '2026-03-01T15:00:00Z');
      assert.equal((await edges.issueWithToken(await tokenFor(ACME, 'web-1', 'uid-1', 're-a'), csrs())).notAfter, '2026-03-01T13:00:00Z', 'a regional edge\'s pod: the lifetime of all');
    });

    it('is refused with an expired token, a bad signature, another audience or no token', async () => {
      const expired = await tokenFor(ACME, 'web-1', 'uid-1', 're-a', 60);
      clock.advance(120_000);
      try {
        await assert.rejects(service.issueWithToken(expired, csrs()), fails('Unauthenticated', /expired at/));
      } finally {
        clock.advance(-120_000);
      }
      const good = await tokenFor(ACME, 'web-1', 'uid-1', 're-a');
      const [h, p, s] = good.split('.');
      const badSignature = `${h}.${p}.${(s ?? '').startsWith('A') ? 'B' : 'A'}${(s ?? '').slice(1)}`;
      await assert.rejects(service.issueWithToken(badSignature, csrs()), fails('Unauthenticated', /signature does not verify/));
      await assert.rejects(service.issueWithToken(undefined, csrs()), fails('Unauthenticated', /needs "Authorization: Bearer <bootstrap token>"/));
    });

    it('is refused when the pod was recreated (another uid), moved to another site, unbound or deleted', async () => {
      const token = await tokenFor(ACME, 'web-1', 'uid-1', 're-a');
      put(ACME, pod('web-1', 'uid-2', 're-a'));
      await assert.rejects(service.issueWithToken(token, csrs()), fails('PodMismatch', /pod web-1 is not the pod the credential was issued for \(uid uid-2, expected uid-1\)/));
      put(ACME, pod('web-1', 'uid-1', 're-b'));
      await assert.rejects(service.issueWithToken(token, csrs()), fails('PodMismatch', /pod web-1 is bound to site re-b, not re-a/));
      put(ACME, pod('web-1', 'uid-1', 're-a', false));
      await assert.rejects(service.issueWithToken(token, csrs()), fails('PodMismatch', /pod web-1 is not bound to a site/));
      pods.clear();
      await assert.rejects(service.issueWithToken(token, csrs()), fails('PodMismatch', /pod web-1 no longer exists in virtual cluster default\/vk1 of tenant acme/));
    });

    it('is refused for a token of a site the pod is not on', async () => {
      await assert.rejects(service.issueWithToken(await tokenFor(ACME, 'web-1', 'uid-1', 're-b'), csrs()), fails('PodMismatch', /bound to site re-a, not re-b/));
    });

    it('looks the pod up only in the token\'s tenant: a token of another tenant naming this cluster finds nothing', async () => {
      // globex's token for acme's pod (same namespace and vK8s names, acme's uid): the pod exists only under acme.
      await assert.rejects(service.issueWithToken(await tokenFor(GLOBEX, 'web-1', 'uid-1', 're-a'), csrs()), fails('PodMismatch', /pod web-1 no longer exists in virtual cluster default\/vk1 of tenant globex/));
    });

    it('checks the CSRs after the token, and their signatures', async () => {
      const token = await tokenFor(ACME, 'web-1', 'uid-1', 're-a');
      await assert.rejects(service.issueWithToken(token, { serverCsr: makeTestCsr(undefined, { tamper: true }).pem, clientCsr: makeTestCsr().pem }), fails('InvalidCsr', /^serverCsr: /));
      await assert.rejects(service.issueWithToken(token, { serverCsr: makeTestCsr().pem }), fails('BadRequest', /clientCsr: Required value/));
      await assert.rejects(service.issueWithToken(token, { ...csrs(), extra: 1 }), fails('BadRequest', /extra: unknown field/));
    });
  });

  describe('renewal with the client certificate', () => {
    const issued = async (): Promise<IdentityBundle> => service.issueWithToken(await tokenFor(ACME, 'web-1', 'uid-1', 're-a'), csrs());

    it('issues new certificates for the same pod while the presented one is valid, even after the token expired', async () => {
      const first = await issued();
      clock.advance(HOUR_MS / 2);
      try {
        const renewed = await service.renew(new X509Certificate(first.clientCertificate), csrs());
        assert.equal(renewed.notAfter, '2026-03-01T13:30:00Z');
        assert.equal(readWorkloadIdentity(new X509Certificate(renewed.serverCertificate).raw)?.podUid, 'uid-1');
      } finally {
        clock.advance(-HOUR_MS / 2);
      }
    });

    it('is refused with an expired certificate', async () => {
      const first = await issued();
      clock.advance(HOUR_MS + 1000);
      try {
        await assert.rejects(service.renew(new X509Certificate(first.clientCertificate), csrs()), fails('Unauthenticated', /it expired at 2026-03-01T13:00:00\.000Z/));
      } finally {
        clock.advance(-(HOUR_MS + 1000));
      }
    });

    it('is refused with a certificate claiming a tenant whose CA did not sign it', async () => {
      // globex's CA signs a certificate whose identity claims acme's pod.
      const contents = certificateContents({ cluster: ACME, site: 're-a', pod: pod('web-1', 'uid-1', 're-a'), services: [] });
      const forged = await issueLeafCertificates(fixture.authorities, { tenant: 'globex', contents, serverKey: await verifyCsr(makeTestCsr().pem, 's'), clientKey: await verifyCsr(makeTestCsr().pem, 'c'), now: START, lifetimeMs: HOUR_MS });
      await assert.rejects(service.renew(new X509Certificate(forged.clientCertificate), csrs()), fails('Unauthenticated', /it was not issued by tenant acme's identity CA/));
    });

    it('gives another tenant\'s valid certificate that tenant\'s pod only', async () => {
      const globex = await service.issueWithToken(await tokenFor(GLOBEX, 'api-1', 'uid-g', 're-b'), csrs());
      const renewed = await service.renew(new X509Certificate(globex.clientCertificate), csrs());
      assert.equal(readWorkloadIdentity(new X509Certificate(renewed.clientCertificate).raw)?.tenant, 'globex');
      assert.equal(renewed.clientCa, globex.clientCa);
      assert.notEqual(renewed.clientCa, (await issued()).clientCa);
    });

    it('is refused with a server certificate, no certificate, or one without a workload identity', async () => {
      const first = await issued();
      await assert.rejects(service.renew(new X509Certificate(first.serverCertificate), csrs()), fails('Unauthenticated', /not a client certificate \(no extended key usage clientAuth\)/));
      await assert.rejects(service.renew(undefined, csrs()), fails('Unauthenticated', /present client\.crt and client\.key/));
      await assert.rejects(service.renew(new X509Certificate(first.chain), csrs()), fails('Unauthenticated', /carries no Edgeplane workload identity/));
    });

    it('re-checks the pod: deleted or recreated pods get nothing', async () => {
      const first = await issued();
      put(ACME, pod('web-1', 'uid-9', 're-a'));
      await assert.rejects(service.renew(new X509Certificate(first.clientCertificate), csrs()), fails('PodMismatch', /uid uid-9, expected uid-1/));
      pods.clear();
      await assert.rejects(service.renew(new X509Certificate(first.clientCertificate), csrs()), fails('PodMismatch', /no longer exists/));
    });
  });

  describe('tokens for admins', () => {
    it('are minted for a bound pod of the namespace for an admin, and audited', async () => {
      audited.length = 0;
      const minted = await service.tokenForAdmin(admin({ default: 'admin' }), { namespace: 'default', vk8s: 'vk1', pod: 'web-1', ttl_seconds: 120 });
      assert.deepEqual({ ...minted, token: typeof minted.token }, { token: 'string', expiresAt: '2026-03-01T12:02:00Z', pod: { name: 'web-1', uid: 'uid-1' }, site: 're-a' });
      assert.deepEqual(await tokens.verify(minted.token), { tenant: 'acme', namespace: 'default', vk8s: 'vk1', site: 're-a', pod: { name: 'web-1', uid: 'uid-1' } });
      assert.deepEqual(audited, [{ cluster: ACME, pod: 'web-1', user: 'ops@acme', expiresAt: '2026-03-01T12:02:00.000Z' }]);
    });

    it('are refused without the admin role, to a credential bound to another vK8s, for missing or unbound pods, and beyond an hour', async () => {
      const request = { namespace: 'default', vk8s: 'vk1', pod: 'web-1' };
      await assert.rejects(service.tokenForAdmin(admin({ default: 'editor' }), request), fails('Forbidden', /needs the admin role in namespace default: user ops@acme has role editor/));
      await assert.rejects(service.tokenForAdmin(admin({ '*': 'admin' }, { namespace: 'default', name: 'vk2' }), request), fails('Forbidden', /bound to virtual cluster default\/vk2/));
      await assert.rejects(service.tokenForAdmin(admin({ '*': 'admin' }), { ...request, pod: 'ghost' }), fails('PodNotFound', /pod ghost not found in virtual cluster default\/vk1/));
      put(ACME, pod('idle', 'uid-i', undefined, false));
      await assert.rejects(service.tokenForAdmin(admin({ '*': 'admin' }), { ...request, pod: 'idle' }), fails('PodNotBound', /not bound to a site yet/));
      await assert.rejects(service.tokenForAdmin(admin({ '*': 'admin' }), { ...request, ttl_seconds: 3601 }), fails('BadRequest', /ttl_seconds: Invalid value: 3601: must be a whole number from 1 to 3600/));
    });
  });

  describe('tokens for sites', () => {
    const body = { tenant: 'acme', namespace: 'default', vk8s: 'vk1', pod: 'web-1', uid: 'uid-1' };
    it('are minted for a pod bound to one of the agent\'s sites, valid 10 minutes', async () => {
      const minted = await service.tokenForSite(new Set(['re-a', 're-c']), body);
      assert.equal(minted.expiresAt, '2026-03-01T12:10:00Z');
      assert.equal((await tokens.verify(minted.token)).site, 're-a');
    });
    it('are refused for pods on other sites, recreated or missing pods', async () => {
      await assert.rejects(service.tokenForSite(new Set(['re-b']), body), fails('Forbidden', /not bound to a site of this agent/));
      await assert.rejects(service.tokenForSite(new Set(['re-a']), { ...body, uid: 'old' }), fails('PodNotFound', /with uid old no longer exists/));
      await assert.rejects(service.tokenForSite(new Set(['re-a']), { ...body, pod: 'ghost' }), fails('PodNotFound', /not found/));
      await assert.rejects(service.tokenForSite(new Set(['re-a']), { ...body, tenant: 'a/b' }), fails('BadRequest', /tenant: Invalid value/));
    });
  });
});
