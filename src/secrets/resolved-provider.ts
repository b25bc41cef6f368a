/**
 * What the control plane hands a pod's sidecar for one secret_management_access object: the
 * contract of `POST /api/secret/.../provider`, shared by the resolver and the sidecar.
 */
/** Vault authentication with its secrets resolved (only ever sent to the pod over mTLS). */
export type ResolvedVaultAuth =
  | { readonly type: 'token'; readonly token: string }
  | { readonly type: 'app_role'; readonly role_id: string; readonly secret_id: string }
  | { readonly type: 'none' };

/** A secret_management_access object as a pod's sidecar needs it to reach the store. */
export interface ResolvedProvider {
  readonly name: string;
  readonly namespace: string;
  readonly provider_name: string;
  readonly server_endpoint: string;
  readonly scheme: 'HTTP' | 'HTTPS';
  readonly tls: { readonly trusted_ca_pem?: string; readonly sni?: string; readonly skip_server_verification: boolean };
  readonly auth: ResolvedVaultAuth;
  /** The shortest cache timeout of the blindfolded credentials (0 when none was blindfolded). */
  readonly cache_timeout_seconds: number;
}
