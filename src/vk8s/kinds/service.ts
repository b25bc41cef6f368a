import type { Strategy } from '../../registry/strategy.js';
import { serviceIpAllocation, type ServiceIpAllocationOptions } from '../allocation/service-ip-allocation.js';
import { baseStrategy, resourceOf, statusOnly } from './base-strategy.js';
import { defaultService, validateService, validateServiceStatus, validateServiceUpdate } from './core-service-rules.js';

/**
 * services: kube-apiserver 1.17's strategy. Defaults (type ClusterIP, sessionAffinity None,
 * TCP, targetPort = port, externalTrafficPolicy Cluster for NodePort/LoadBalancer), the
 * kind's validation, `status: {loadBalancer: {}}` on create, status kept on update, ClusterIP
 * allocation per virtual cluster. Names are DNS-1035 labels.
 */
export function makeServiceStrategy(allocation: ServiceIpAllocationOptions = {}): Strategy {
  return baseStrategy(resourceOf('', 'v1', 'services'), {
    nameRule: 'dns1035Label',
    defaults: defaultService,
    prepareForCreate: (object) => {
      object.status = { loadBalancer: {} };
    },
    validate: (object) => validateService(object),
    validateUpdate: (object, old) => validateServiceUpdate(object, old),
    status: { ...statusOnly(), validateUpdate: (object) => validateServiceStatus(object) },
    allocation: serviceIpAllocation(allocation),
  });
}

export const serviceStrategy = makeServiceStrategy();
