import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

export const policer: ConfigKind = {
  kind: 'policer',
  slug: 'config',
  description: 'A rate limit in packets per second that forwarding classes refer to.',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object(
    {
      committed_information_rate: schema.integer({ minimum: 1, description: 'Packets per second.' }),
      burst_size: schema.integer({ minimum: 1, description: 'Packets.' }),
      policer_mode: schema.enumOf(['POLICER_MODE_NOT_SHARED', 'POLICER_MODE_SHARED'], 'POLICER_MODE_NOT_SHARED'),
      policer_type: schema.enumOf(['POLICER_SINGLE_RATE_TWO_COLOR'], 'POLICER_SINGLE_RATE_TWO_COLOR'),
    },
    ['committed_information_rate', 'burst_size'],
  ),
  oneOfs: [],
};
