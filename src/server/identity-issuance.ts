import type { KubeObject } from '../apimachinery/object.js';
import type { IdentityKeyAlgorithm } from '../identity/identity-key-algorithm.js';
import type { IdentityServiceStartOptions } from '../identity/start-identity-service.js';
import { siteTypeOfNodes } from '../site-plane/site-node.js';

/** The control plane's options on what the identity service issues. */
interface IssuanceOptions {
  readonly identityKeyAlgorithm?: IdentityKeyAlgorithm;
  readonly identityCertificateLifetimeMs?: number;
  readonly identityCustomerEdgeCertificateLifetimeMs?: number;
}

type Issuance = Pick<IdentityServiceStartOptions, 'keyAlgorithm' | 'certificateLifetimeMs' | 'customerEdgeCertificateLifetimeMs' | 'siteTypeOf'>;

/**
 * The identity service's key algorithm and certificate lifetimes from the control plane's
 * options; a site's type (customer edges' pods may get a lifetime of their own, docs/SITES.md)
 * from its Nodes' label in the site inventory.
 */
export function identityIssuance(options: IssuanceOptions, sites: { nodesOf(site: string): readonly KubeObject[] }): Issuance {
  const edgeLifetime = options.identityCustomerEdgeCertificateLifetimeMs;
  return {
    ...(options.identityKeyAlgorithm === undefined ? {} : { keyAlgorithm: options.identityKeyAlgorithm }),
    ...(options.identityCertificateLifetimeMs === undefined ? {} : { certificateLifetimeMs: options.identityCertificateLifetimeMs }),
    ...(edgeLifetime === undefined ? {} : { customerEdgeCertificateLifetimeMs: edgeLifetime }),
    siteTypeOf: (site) => siteTypeOfNodes(sites.nodesOf(site)),
  };
}
