import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

const INTERFACE_GROUPS = ['ANY_AVAILABLE_INTERFACE', 'INTERFACE_GROUP1', 'INTERFACE_GROUP2', 'INTERFACE_GROUP3'] as const;
const DSCP_CLASSES = [
  'DSCP_BEST_EFFORT',
  'DSCP_CLASS1',
  'DSCP_CLASS2',
  'DSCP_CLASS3',
  'DSCP_CLASS4',
  'DSCP_EXPRESS_FORWARDING',
  'DSCP_CONTROL_L3',
  'DSCP_CONTROL_L2',
] as const;
const DROP_PRECEDENCES = ['DSCP_AF_LOW', 'DSCP_AF_MEDIUM', 'DSCP_AF_HIGH', 'DSCP_AF_POLICER'] as const;

/** How traffic of a class is marked, queued and policed on an interface group. */
export const forwardingClass: ConfigKind = {
  kind: 'forwarding_class',
  slug: 'config',
  description: 'Marking, queueing and policing of a class of traffic on an interface group.',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object(
    {
      interface_group: schema.enumOf(INTERFACE_GROUPS),
      no_marking: schema.empty('Leave packets unmarked (default).'),
      dscp: schema.nullable(
        schema.object({ dscp_class: schema.enumOf(DSCP_CLASSES), drop_precedence: schema.enumOf(DROP_PRECEDENCES, 'DSCP_AF_LOW') }, ['dscp_class']),
      ),
      tos_value: schema.integer({ minimum: 0, maximum: 255, nullable: true }),
      dscp_based_queue: schema.empty('Queue by the packet\'s DSCP value (default).'),
      queue_id_to_use: schema.enumOf(DSCP_CLASSES),
      no_policer: schema.empty('No policing (default).'),
      policer: schema.ref('The policer object to apply.'),
    },
    ['interface_group'],
  ),
  oneOfs: [
    { members: ['no_marking', 'dscp', 'tos_value'], default: { member: 'no_marking', value: () => ({}) } },
    { members: ['dscp_based_queue', 'queue_id_to_use'], default: { member: 'dscp_based_queue', value: () => ({}) } },
    { members: ['no_policer', 'policer'], default: { member: 'no_policer', value: () => ({}) } },
  ],
  refersTo: ['policer'],
  references: (spec) => (spec['policer'] === undefined ? [] : [{ field: 'spec.policer', value: spec['policer'], targetKind: 'policer' }]),
};
