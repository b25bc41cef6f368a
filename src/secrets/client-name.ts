import type { PolicyCaller } from './policy-evaluation.js';
import type { PodIdentity } from './ports.js';

/**
 * The client name secret-policy rules match: the pod's SPIFFE ID,
 * `spiffe://<tenant>/ns/<namespace>/sa/<service account>` — the URI SAN of its certificate.
 * It names the workload, not the pod: it is the same for every replica, on every site, across
 * restarts and rollouts (pod names carry per-site hashes and change), and it carries tenant
 * and namespace, so a rule cannot match another namespace by accident. Pod-level choices
 * (app, tier, site) are made with `client_selector` on the pod's labels.
 */
export function clientNameOf(identity: PodIdentity): string {
  return `spiffe://${identity.tenant}/ns/${identity.namespace}/sa/${identity.serviceAccount === '' ? 'default' : identity.serviceAccount}`;
}

/** The caller as policy rules see it. */
export function policyCallerOf(identity: PodIdentity): PolicyCaller {
  return { clientName: clientNameOf(identity), labels: identity.labels };
}
