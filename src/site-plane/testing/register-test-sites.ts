import { generateEcKeyPair, privateKeyToPem, SIGN_ECDSA_SHA256, x509 } from '../../common/x509.js';
import type { CallOptions } from '../../server/testing/config-harness.js';
import type { HttpsResponse } from '../../client/https-client.js';
import type { SiteType } from '../../site-api/site-model.js';

export interface TestSite {
  readonly name: string;
  readonly type: SiteType;
  readonly labels?: Record<string, string>;
  readonly nodes?: ReadonlyArray<{ readonly name: string; readonly cpu: string; readonly memory: string }>;
  readonly quota?: { readonly cpu: string; readonly memory: string };
}

/** The agent credential registration answered: a client certificate (mTLS) and its key. */
export interface TestAgent {
  readonly cert: string;
  readonly key: string;
}

type Call = (method: string, path: string, options?: CallOptions & { headers?: Record<string, string> }) => Promise<HttpsResponse>;

/**
 * Registers `sites` through the real site API, as `edgeplane site` does: a registration
 * token from `/api/sites/v1/tokens` (the platform's admin token for regional edges, the
 * tenant's otherwise), a key pair and CSR made here, then `/api/sites/v1/register`.
 */
export async function registerTestSites(call: Call, tokens: { tenant: string; platform: string }, agent: string, sites: readonly TestSite[]): Promise<TestAgent> {
  const type = sites[0]?.type ?? 'CUSTOMER_EDGE';
  if (sites.some((s) => s.type !== type)) throw new Error('registerTestSites: one agent registers sites of one type here; call it once per type');
  const issued = await call('POST', '/api/sites/v1/tokens', { token: type === 'REGIONAL_EDGE' ? tokens.platform : tokens.tenant, body: { type, ttl_seconds: 600 } });
  if (issued.status !== 200) throw new Error(`site token: HTTP ${issued.status}: ${issued.body}`);
  const keys = await generateEcKeyPair();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${agent}`, keys, signingAlgorithm: SIGN_ECDSA_SHA256 });
  const body = {
    agent,
    csr: csr.toString('pem'),
    sites: sites.map((s) => ({ name: s.name, type: s.type, labels: s.labels ?? {}, nodes: s.nodes ?? [{ name: 'node-1', cpu: '8', memory: '16Gi' }], ...(s.quota === undefined ? {} : { quota: s.quota }) })),
  };
  const registered = await call('POST', '/api/sites/v1/register', { token: null, headers: { authorization: `Bearer ${issued.json<{ token: string }>().token}` }, body });
  if (registered.status !== 200) throw new Error(`site registration: HTTP ${registered.status}: ${registered.body}`);
  return { cert: registered.json<{ certificate: string }>().certificate, key: await privateKeyToPem(keys.privateKey) };
}
