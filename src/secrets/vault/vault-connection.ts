import type { ResolvedProvider } from '../resolved-provider.js';
import { VaultError } from './vault-error.js';

export type VaultCredentials = { readonly type: 'token'; readonly token: string } | { readonly type: 'app_role'; readonly roleId: string; readonly secretId: string };

/** How to reach one Vault and log in to it. */
export interface VaultConnection {
  /** A name for messages: the provider (secret_management_access object). */
  readonly provider: string;
  /** `host:port` (IPv6 in brackets). */
  readonly endpoint: string;
  readonly scheme: 'HTTP' | 'HTTPS';
  readonly tls?: {
    /** PEM bundle to trust instead of the system's CAs. */
    readonly trustedCaPem?: string;
    /** The name to send as SNI and to verify the certificate against (default: the endpoint's host). */
    readonly sni?: string;
    /** Accept any certificate (tests, or a Vault whose certificate cannot be verified). */
    readonly skipVerification?: boolean;
  };
  readonly credentials: VaultCredentials;
}

/** Pure: the connection a resolved provider (GET /api/secret_management/v1/providers/{name}) describes. */
export function vaultConnectionOf(provider: ResolvedProvider): VaultConnection {
  const { auth } = provider;
  let credentials: VaultCredentials;
  switch (auth.type) {
    case 'token':
      credentials = { type: 'token', token: auth.token };
      break;
    case 'app_role':
      credentials = { type: 'app_role', roleId: auth.role_id, secretId: auth.secret_id };
      break;
    case 'none':
      throw new VaultError('LoginRefused', `provider ${provider.name} has no vault_auth_info (token or app_role_auth)`);
  }
  return {
    provider: provider.name,
    endpoint: provider.server_endpoint,
    scheme: provider.scheme,
    tls: {
      ...(provider.tls.trusted_ca_pem === undefined ? {} : { trustedCaPem: provider.tls.trusted_ca_pem }),
      ...(provider.tls.sni === undefined ? {} : { sni: provider.tls.sni }),
      skipVerification: provider.tls.skip_server_verification,
    },
    credentials,
  };
}
