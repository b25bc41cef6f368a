/** What an issuance answers (the shared contract of the identity API and the sidecar). */
export interface IdentityBundle {
  /** PEM, the leaf only. */
  readonly serverCertificate: string;
  /** PEM, the leaf only. */
  readonly clientCertificate: string;
  /** PEM of the intermediate(s): the tenant CA signed by the platform root. */
  readonly chain: string;
  /** PEM bundle: CAs to trust remote servers (the tenant trust anchor). */
  readonly serverCa: string;
  /** PEM bundle: CAs to trust remote clients (the tenant trust anchor). */
  readonly clientCa: string;
  /** RFC 3339, of both leaves. */
  readonly notBefore: string;
  readonly notAfter: string;
}

/** What a token request answers. */
export interface BootstrapToken {
  readonly token: string;
  readonly expiresAt: string;
  readonly pod: { readonly name: string; readonly uid: string };
  readonly site: string;
}
