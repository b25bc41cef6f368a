import type { Strategy } from '../../registry/strategy.js';
import { serviceIpAllocation, type ServiceIpAllocationOptions } from '../allocation/service-ip-allocation.js';
import { baseStrategy, resourceOf, statusOnly } from './base-strategy.js';
import { defaultService, SERVICE_TYPES, validateService, validateServiceStatus, validateServiceUpdate } from './core-service-rules.js';
import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';

/**
 * services: kube-apiserver 1.17's strategy. Defaults (type ClusterIP, sessionAffinity None,
 * TCP, targetPort = port, externalTrafficPolicy Cluster for NodePort/LoadBalancer), the
 * kind's validation, `status: {loadBalancer: {}}` on create, status kept on update, ClusterIP
 * allocation per virtual cluster. Names are DNS-1035 labels.
 */
function makeServiceStrategy(allocation: ServiceIpAllocationOptions = {}): Strategy {
  return baseStrategy(resourceOf('', 'v1', 'services'), {
    nameRule: 'dns1035Label',
    defaults: defaultService,
    prepareForCreate: (object) => {
      object.status = { loadBalancer: {} };
    },
    validate: (object) => [...validateService(object), ...platformServiceRules(object)],
    validateUpdate: (object, old) => [...validateServiceUpdate(object, old), ...platformServiceRules(object)],
    status: { ...statusOnly(), validateUpdate: (object) => validateServiceStatus(object) },
    allocation: serviceIpAllocation(allocation),
  });
}

export const serviceStrategy = makeServiceStrategy();

/**
 * The platform's own rule on top of kube's: only `type: ClusterIP` Services exist in a
 * virtual cluster (PLATFORM-FACTS); sites reach workloads through the platform's proxies,
 * not node ports or cloud load balancers. Headless services (`clusterIP: None`) are ClusterIP.
 */
function platformServiceRules(object: KubeObject): StatusCause[] {
  const type = (object.spec as { type?: string } | undefined)?.type;
  if (type === undefined || type === 'ClusterIP' || !SERVICE_TYPES.includes(type)) return [];
  return [fieldError.notSupported('spec.type', type, ['ClusterIP'])];
}
