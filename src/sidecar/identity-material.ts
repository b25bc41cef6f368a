import type { IdentityValidity } from './sidecar-state.js';

/** Everything the pod's identity consists of: its two key pairs' private halves, certificates and CA bundles (PEM). */
export interface IdentityMaterial {
  readonly serverKey: string;
  /** The server leaf certificate only. */
  readonly serverCertificate: string;
  readonly clientKey: string;
  /** The client leaf certificate only. */
  readonly clientCertificate: string;
  /** The intermediate CA certificate(s), leaf-side first. */
  readonly chain: string;
  readonly serverCa: string;
  readonly clientCa: string;
  /** The validity the two leaves share (the narrower of the two if they differ). */
  readonly validity: IdentityValidity;
}

export const CREDENTIAL_ROLES = ['server', 'client'] as const;
export type CredentialRole = (typeof CREDENTIAL_ROLES)[number];
/** `key`: the private key; `cert`: leaf + intermediates; `cert-only`: the leaf. */
export const CREDENTIAL_FORMS = ['key', 'cert', 'cert-only'] as const;
export type CredentialForm = (typeof CREDENTIAL_FORMS)[number];
export const CA_BUNDLE_NAMES = ['server_ca', 'client_ca'] as const;
export type CaBundleName = (typeof CA_BUNDLE_NAMES)[number];

/** PEM text ending with exactly one newline, so concatenations stay valid PEM. */
export function pemBlock(pem: string): string {
  return pem.trim() + '\n';
}

/** One credential as `/creds/pki/{role}/{form}` serves it. */
export function credentialPem(material: IdentityMaterial, role: CredentialRole, form: CredentialForm): string {
  const key = role === 'server' ? material.serverKey : material.clientKey;
  const leaf = role === 'server' ? material.serverCertificate : material.clientCertificate;
  switch (form) {
    case 'key':
      return pemBlock(key);
    case 'cert':
      return pemBlock(leaf) + pemBlock(material.chain);
    case 'cert-only':
      return pemBlock(leaf);
  }
}

/** A CA bundle as `/trust/pki/{name}` serves it. */
export function caBundlePem(material: IdentityMaterial, name: CaBundleName): string {
  return pemBlock(name === 'server_ca' ? material.serverCa : material.clientCa);
}
