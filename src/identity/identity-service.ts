import type { WorkloadIdentity } from './identity-extension.js';
import type { X509Certificate } from 'node:crypto';
import { authorize } from '../auth/authorize.js';
import type { CertificatePrincipal } from '../auth/credentials.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { Clock } from '../common/clock.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { BootstrapTokens, TokenBinding } from './bootstrap-tokens.js';
import { DEFAULT_TOKEN_TTL_SECONDS } from './bootstrap-tokens.js';
import type { CertificateAuthorities } from './certificate-authorities.js';
import { certificateContents } from './certificate-contents.js';
import type { CsrVerifier } from './csr-verifier-pool.js';
import type { BootstrapToken, IdentityBundle } from '../site-api/identity-bundle.js';
import { IdentityError } from './identity-error.js';
import { type CsrPair, parseAdminTokenRequest, parseCsrPair, parseSiteTokenRequest } from './identity-requests.js';
import { issueLeafCertificates } from './leaf-certificates.js';
import { type PodClaim, podClaimProblem, siteOfPod } from './pod-site.js';
import { PresentedCertificateChecks } from './presented-certificate.js';
import type { TokenAudit } from './token-audit.js';
import type { WorkloadSource } from './workload-source.js';
import { metav1Time } from '../apimachinery/meta-time.js';
import type { SiteType } from '../site-api/site-model.js';

const DEFAULT_CERTIFICATE_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface IdentityServiceDependencies {
  readonly authorities: CertificateAuthorities;
  readonly tokens: BootstrapTokens;
  readonly workloads: WorkloadSource;
  readonly audit: Pick<TokenAudit, 'tokenIssued'>;
  /** Where CSRs are parsed and their signatures checked (worker threads in the server). */
  readonly csrs: CsrVerifier;
  readonly clock: Clock;
  /** Leaf lifetime (default 24 h). */
  readonly lifetimeMs?: number;
  /** Leaf lifetime of pods on customer edges (default `lifetimeMs`): how long such a site's pods keep their identity offline (docs/SITES.md). */
  readonly customerEdgeLifetimeMs?: number;
  /** The type of a site (customer edges get `customerEdgeLifetimeMs`); undefined when unknown. */
  readonly siteTypeOf?: (site: string) => SiteType | undefined;
  readonly random?: (bytes: number) => Buffer;
}

/** What the routes call. */
export type IdentityOperations = Pick<IdentityService, 'issueWithToken' | 'renew' | 'tokenForAdmin' | 'tokenForSite' | 'authenticatePod'>;


/**
 * The identity service's operations, independent of HTTP: issuance with a bootstrap token,
 * renewal with the current client certificate, and bootstrap tokens for admins and sites.
 * Every issuance re-reads the pod (it must exist with the credential's uid, bound to the
 * credential's site, in the credential's tenant) and derives the certificates from it; the
 * CSRs give only public keys. Nothing is written to the store per issuance.
 */
export class IdentityService {
  private readonly lifetimeMs: number;
  private readonly presented = new PresentedCertificateChecks();

  constructor(private readonly deps: IdentityServiceDependencies) {
    this.lifetimeMs = deps.lifetimeMs ?? DEFAULT_CERTIFICATE_LIFETIME_MS;
  }

  /** `POST /certificates`: the bearer of a valid bootstrap token gets its pod's certificates. */
  async issueWithToken(token: string | undefined, body: unknown): Promise<IdentityBundle> {
    const csrs = parseCsrPair(body);
    if (token === undefined) throw new IdentityError('Unauthenticated', 'issuance needs "Authorization: Bearer <bootstrap token>"');
    const binding = await this.deps.tokens.verify(token);
    const cluster: ClusterRef = { tenant: binding.tenant, namespace: binding.namespace, name: binding.vk8s };
    const pod = await this.currentPod(cluster, { pod: binding.pod.name, uid: binding.pod.uid, site: binding.site }, 'bootstrap token');
    return this.issue(cluster, binding.site, pod, csrs);
  }

  /** `POST /certificates/renew`: the holder of a valid client certificate gets new certificates for the same pod. */
  async renew(presented: X509Certificate | undefined, body: unknown): Promise<IdentityBundle> {
    const csrs = parseCsrPair(body);
    const { identity, cluster, pod } = await this.podOf(presented);
    return this.issue(cluster, identity.site, pod, csrs);
  }

  /**
   * Who a TLS client is, for other services of the platform (the secret service's unseal):
   * a valid client certificate of the pod's tenant CA (as renewal checks it) whose pod still
   * exists with that uid, bound to that site. A certificate outliving its pod proves nothing.
   */
  async authenticatePod(presented: X509Certificate | undefined): Promise<WorkloadIdentity> {
    return (await this.podOf(presented)).identity;
  }

  private async podOf(presented: X509Certificate | undefined): Promise<{ identity: WorkloadIdentity; cluster: ClusterRef; pod: KubeObject }> {
    const identity = await this.presented.verify(presented, (tenant) => this.deps.authorities.existingTenantCa(tenant), this.deps.clock.now());
    const cluster: ClusterRef = { tenant: identity.tenant, namespace: identity.namespace, name: identity.vk8s };
    const pod = await this.currentPod(cluster, { pod: identity.pod, uid: identity.podUid, site: identity.site }, 'client certificate');
    return { identity, cluster, pod };
  }

  /** `POST /api/identity/v1/tokens`: an admin of the namespace mints a token for one of its pods (audited). */
  async tokenForAdmin(principal: CertificatePrincipal, body: unknown): Promise<BootstrapToken> {
    const request = parseAdminTokenRequest(body);
    const decision = authorize(principal, 'manage', request.namespace);
    if (!decision.allowed) throw new IdentityError('Forbidden', `minting identity tokens needs the admin role in namespace ${request.namespace}: ${decision.reason}`);
    const bound = principal.virtualK8s;
    if (bound !== undefined && (bound.namespace !== request.namespace || bound.name !== request.vk8s)) {
      throw new IdentityError('Forbidden', `credential ${principal.credential} is bound to virtual cluster ${bound.namespace}/${bound.name}`);
    }
    const cluster: ClusterRef = { tenant: principal.tenant, namespace: request.namespace, name: request.vk8s };
    const pod = await this.existingPod(cluster, request.pod);
    const site = siteOfPod(pod);
    if (site === undefined) throw new IdentityError('PodNotBound', `pod ${request.pod} is not bound to a site yet; its identity depends on the site it runs on`);
    const minted = await this.mint(cluster, pod, site, request.ttlSeconds);
    await this.deps.audit.tokenIssued(cluster, pod, principal, new Date(minted.expiresAt));
    return minted;
  }

  /** `POST /api/sites/v1/pods/identity-token`: a site agent gets a token for a pod bound to one of its sites. */
  async tokenForSite(agentSites: ReadonlySet<string>, body: unknown): Promise<BootstrapToken> {
    const request = parseSiteTokenRequest(body);
    const cluster: ClusterRef = { tenant: request.tenant, namespace: request.namespace, name: request.vk8s };
    const pod = await this.existingPod(cluster, request.pod);
    if (pod.metadata.uid !== request.uid) throw new IdentityError('PodNotFound', `pod ${request.pod} with uid ${request.uid} no longer exists (its uid is now ${pod.metadata.uid ?? '<none>'})`);
    const site = siteOfPod(pod);
    if (site === undefined || !agentSites.has(site)) throw new IdentityError('Forbidden', `pod ${request.pod} is not bound to a site of this agent`);
    return this.mint(cluster, pod, site, DEFAULT_TOKEN_TTL_SECONDS);
  }

  private async mint(cluster: ClusterRef, pod: KubeObject, site: string, ttlSeconds: number): Promise<BootstrapToken> {
    const name = pod.metadata.name ?? '';
    const uid = pod.metadata.uid ?? '';
    const binding: TokenBinding = { tenant: cluster.tenant, namespace: cluster.namespace, vk8s: cluster.name, site, pod: { name, uid } };
    const { token, expiresAt } = await this.deps.tokens.sign(binding, ttlSeconds);
    return { token, expiresAt: metav1Time(expiresAt), pod: { name, uid }, site };
  }

  private async existingPod(cluster: ClusterRef, name: string): Promise<KubeObject> {
    const pod = await this.deps.workloads.pod(cluster, name);
    if (pod === undefined) throw new IdentityError('PodNotFound', `pod ${name} not found in virtual cluster ${cluster.namespace}/${cluster.name}`);
    return pod;
  }

  /** The credential's pod as it is now, when it still is the pod the credential was made for. */
  private async currentPod(cluster: ClusterRef, claim: PodClaim, credential: string): Promise<KubeObject> {
    const pod = await this.deps.workloads.pod(cluster, claim.pod);
    if (pod === undefined) throw new IdentityError('PodMismatch', `the ${credential}'s pod ${claim.pod} no longer exists in virtual cluster ${cluster.namespace}/${cluster.name} of tenant ${cluster.tenant}`);
    const problem = podClaimProblem(pod, claim);
    if (problem !== undefined) throw new IdentityError('PodMismatch', `the ${credential} no longer matches its pod: ${problem}`);
    return pod;
  }

  private async issue(cluster: ClusterRef, site: string, pod: KubeObject, csrs: CsrPair): Promise<IdentityBundle> {
    const [serverKey, clientKey] = await this.deps.csrs.verify([
      { pem: csrs.serverCsr, field: 'serverCsr' },
      { pem: csrs.clientCsr, field: 'clientCsr' },
    ]);
    if (serverKey === undefined || clientKey === undefined) throw new Error('the CSR verifier answered fewer keys than asked');
    const contents = certificateContents({ cluster, site, pod, services: this.deps.workloads.services(cluster) });
    const lifetimeMs = this.lifetimeOnSite(site);
    return issueLeafCertificates(this.deps.authorities, { tenant: cluster.tenant, contents, serverKey, clientKey, now: this.deps.clock.now(), lifetimeMs }, this.deps.random);
  }

  /** The leaf lifetime of a pod on `site`: a customer edge's own when one is set. */
  private lifetimeOnSite(site: string): number {
    const { customerEdgeLifetimeMs, siteTypeOf } = this.deps;
    return customerEdgeLifetimeMs !== undefined && siteTypeOf?.(site) === 'CUSTOMER_EDGE' ? customerEdgeLifetimeMs : this.lifetimeMs;
  }
}
