import { CA_BUNDLE_NAMES, type CaBundleName, caBundlePem, CREDENTIAL_FORMS, CREDENTIAL_ROLES, type CredentialForm, type CredentialRole, credentialPem, type IdentityMaterial } from './identity-material.js';
import { notReadyResponse, PEM, type SidecarEndpoint, type SidecarResponse, textResponse } from './sidecar-endpoint.js';
import type { SidecarView } from './sidecar-view.js';

function oneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/** Answers with `pem` from the identity being served, or 503 with the state when there is none. */
function identityPem(view: SidecarView, pem: (material: IdentityMaterial) => string): SidecarResponse {
  const material = view.identity();
  if (material === undefined) return notReadyResponse(view.current().kind);
  return { status: 200, headers: { 'content-type': PEM, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }, body: pem(material) };
}

/** `GET /creds/pki/{server|client}/{key|cert|cert-only}`: the pod's key, chain or leaf (PEM). */
export const credentialsEndpoint: SidecarEndpoint = {
  method: 'GET',
  url: '/creds/pki/:role/:form',
  display: `/creds/pki/{${CREDENTIAL_ROLES.join('|')}}/{${CREDENTIAL_FORMS.join('|')}}`,
  handle: (request, view) => {
    const { role = '', form = '' } = request.params;
    if (!oneOf<CredentialRole>(CREDENTIAL_ROLES, role)) return textResponse(404, `unknown credential "${role}": valid names are ${CREDENTIAL_ROLES.join(', ')}\n`);
    if (!oneOf<CredentialForm>(CREDENTIAL_FORMS, form)) return textResponse(404, `unknown form "${form}" of the ${role} credential: valid forms are ${CREDENTIAL_FORMS.join(', ')}\n`);
    return identityPem(view, (material) => credentialPem(material, role, form));
  },
};

/** `GET /trust/pki/{server_ca|client_ca}`: a CA bundle (PEM). */
export const trustEndpoint: SidecarEndpoint = {
  method: 'GET',
  url: '/trust/pki/:bundle',
  display: `/trust/pki/{${CA_BUNDLE_NAMES.join('|')}}`,
  handle: (request, view) => {
    const { bundle = '' } = request.params;
    if (!oneOf<CaBundleName>(CA_BUNDLE_NAMES, bundle)) return textResponse(404, `unknown CA bundle "${bundle}": valid names are ${CA_BUNDLE_NAMES.join(', ')}\n`);
    return identityPem(view, (material) => caBundlePem(material, bundle));
  },
};
