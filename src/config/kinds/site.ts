import { isDeepStrictEqual } from 'node:util';
import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';
import { SITE_TYPES } from './virtual-site.js';

export const SITE_STATES = [
  'ONLINE',
  'PROVISIONING',
  'UPGRADING',
  'STANDBY',
  'FAILED',
  'DECOMMISSIONING',
  'WAITING_FOR_REGISTRATION',
] as const;

/**
 * A site. Sites appear by registration (customer edge in the tenant's `system` namespace,
 * regional edge in `svc-io-system`); users may replace only labels, description and
 * `spec.location`, and delete them.
 */
export const site: ConfigKind = {
  kind: 'site',
  slug: 'config',
  description: 'An edge site that runs workloads; created by site registration.',
  nameRule: 'dns1035',
  publicCreate: false,
  specSchema: schema.object(
    {
      site_type: schema.enumOf(SITE_TYPES),
      location: schema.nullable(
        schema.object({
          latitude: schema.number({ minimum: -90, maximum: 90 }),
          longitude: schema.number({ minimum: -180, maximum: 180 }),
          address: schema.string(),
        }),
      ),
      nodes: schema.arrayOf(
        schema.object({ name: schema.string(), cpu: schema.string(), memory: schema.string() }, ['name']),
        { description: 'Set by registration.' },
      ),
    },
    ['site_type'],
  ),
  oneOfs: [],
  prepareForCreate(spec) {
    return { spec, status: [{ state: 'WAITING_FOR_REGISTRATION' }] };
  },
  prepareForReplace(old, spec) {
    const rest = (s: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'location'));
    const problems = isDeepStrictEqual(rest(old.spec), rest(spec))
      ? []
      : ['spec: only metadata.labels, metadata.description and spec.location of a site can be replaced; the rest is set by registration'];
    return { spec, problems };
  },
};
