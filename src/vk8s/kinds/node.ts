import { baseStrategy, keepStatus, resourceOf, statusOnly } from './base-strategy.js';
import { defaultNode, validateNode, validateNodeUpdate } from './core-node-rules.js';
import { view, type NodeSpec } from './core-types.js';

/**
 * nodes: kube-apiserver 1.17's strategy (cluster-scoped): status may be set on create (nodes
 * register with it) and is kept on spec updates; allocatable defaults to capacity; taints,
 * pod CIDRs and resource quantities are checked; pod CIDRs and providerID only go from unset
 * to set. `spec.unschedulable` is a field-selector field.
 */
export const nodeStrategy = baseStrategy(resourceOf('', 'v1', 'nodes'), {
  defaults: defaultNode,
  prepareForCreate: () => {},
  prepareForUpdate: keepStatus,
  validate: (object) => validateNode(object),
  validateUpdate: (object, old) => validateNodeUpdate(object, old),
  selectableFields: (object) => ({ 'spec.unschedulable': String(view<NodeSpec>(object, 'spec').unschedulable === true) }),
  status: { ...statusOnly(), validateUpdate: (object, old) => validateNodeUpdate(object, old) },
});
