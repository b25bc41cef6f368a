import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

/** A namespace of a tenant: served under /api/web/namespaces; its own namespace is "". */
export const namespaceKind: ConfigKind = {
  kind: 'namespace',
  slug: 'web',
  description: 'A namespace holding configuration objects and one virtual cluster.',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object({}),
  oneOfs: [],
};
