import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

const DNSSEC_MODES = ['DNSSEC_DISABLE', 'DNSSEC_ENABLE'] as const;
export const VERIFICATION = {
  pending: 'DNS_DOMAIN_VERIFICATION_PENDING',
  success: 'DNS_DOMAIN_VERIFICATION_SUCCESS',
  failed: 'DNS_DOMAIN_VERIFICATION_FAILED',
} as const;
/** The platform's authoritative name servers a managed domain is delegated to. */
const PLATFORM_NAME_SERVERS = ['ns1.edgeplane.invalid', 'ns2.edgeplane.invalid'];

/**
 * A DNS domain the tenant owns. The object's name is the domain. `domain` and `txt_record`
 * in the spec are read-only (always "" on write, as the seed's create response shows); the
 * TXT value the owner must publish, and the verification state, are in the status.
 */
export const dnsDomain: ConfigKind = {
  kind: 'dns_domain',
  slug: 'config',
  description: 'A DNS domain delegated to (managed by) the platform, verified by a TXT record.',
  nameRule: 'dns1123-subdomain',
  publicCreate: true,
  specSchema: schema.object({
    vendor_managed: schema.empty('The platform manages the domain (the default and only choice).'),
    domain: schema.string({ description: 'Read-only.' }),
    txt_record: schema.string({ description: 'Read-only; the value to publish is in the status.' }),
    dnssec_mode: schema.enumOf(DNSSEC_MODES, 'DNSSEC_DISABLE'),
  }),
  oneOfs: [{ members: ['vendor_managed'], default: { member: 'vendor_managed', value: () => ({}) } }],
  prepareForCreate(spec, context) {
    return {
      spec: { ...spec, domain: '', txt_record: '' },
      status: [
        {
          domain_verification: VERIFICATION.pending,
          txt_record: `edgeplane-verification=${context.random()}`,
          name_servers: PLATFORM_NAME_SERVERS,
          dnssec_mode: spec['dnssec_mode'],
          last_verification_time: null,
          verification_message: `publish a TXT record on ${context.name} with the value above, then call verify`,
        },
      ],
    };
  },
  prepareForReplace(old, spec) {
    return { spec: { ...spec, domain: old.spec['domain'] ?? '', txt_record: old.spec['txt_record'] ?? '' }, problems: [] };
  },
};
