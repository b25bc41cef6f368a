import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

/** Compute limits for containers (vCPU, memory and ephemeral storage in MiB). */
export const workloadFlavor: ConfigKind = {
  kind: 'workload_flavor',
  slug: 'config',
  description: 'CPU, memory and ephemeral storage limits applied to workload containers.',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object(
    {
      vcpus: schema.number({ exclusiveMinimum: 0, maximum: 8, description: 'vCPUs (threads), at most 8.' }),
      memory: schema.integer({ minimum: 1, maximum: 32768, description: 'MiB.' }),
      ephemeral_storage: schema.integer({ minimum: 0, maximum: 1048576, description: 'MiB.' }),
    },
    ['vcpus', 'memory'],
  ),
  oneOfs: [],
};
