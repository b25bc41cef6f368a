import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123SubdomainProblems } from '../../apimachinery/validation/names.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, resourceOf } from './base-strategy.js';
import { PORT_PROTOCOLS, portNumProblems, validateDns1123Label } from './core-fields.js';
import { validateIp, validateNonSpecialIp } from './core-ip.js';
import type { EndpointAddress, EndpointPort, EndpointSubset } from './core-types.js';

/**
 * endpoints: kube-apiserver 1.17's strategy: ports default to TCP; every subset has
 * addresses (ready or not) that are valid, non-special IPs, optional DNS-label hostnames and
 * node names; ports are valid, named when there are several.
 */
export const endpointsStrategy = baseStrategy(resourceOf('', 'v1', 'endpoints'), {
  defaults: (object) => {
    for (const subset of subsetsOf(object)) for (const port of subset.ports ?? []) if ((port.protocol ?? '') === '') port.protocol = 'TCP';
  },
  validate: (object) => validateEndpoints(object),
  validateUpdate: (object) => validateEndpoints(object),
});

/** ValidateEndpoints without the ObjectMeta part. */
function validateEndpoints(object: KubeObject): StatusCause[] {
  return subsetsOf(object).flatMap((subset, i) => {
    const path = `subsets[${i}]`;
    const addresses = subset.addresses ?? [];
    const notReady = subset.notReadyAddresses ?? [];
    const ports = subset.ports ?? [];
    const causes: StatusCause[] = [];
    if (addresses.length === 0 && notReady.length === 0) causes.push(fieldError.required(path, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((address, j) => causes.push(...validateAddress(address, `${path}.addresses[${j}]`)));
    notReady.forEach((address, j) => causes.push(...validateAddress(address, `${path}.notReadyAddresses[${j}]`)));
    ports.forEach((port, j) => causes.push(...validatePort(port, ports.length > 1, `${path}.ports[${j}]`)));
    return causes;
  });
}

function validateAddress(address: EndpointAddress, path: string): StatusCause[] {
  const ip = address.ip ?? '';
  const causes = validateIp(ip, `${path}.ip`);
  if ((address.hostname ?? '') !== '') causes.push(...validateDns1123Label(address.hostname ?? '', `${path}.hostname`));
  if (address.nodeName !== undefined) {
    for (const p of dns1123SubdomainProblems(address.nodeName)) causes.push(fieldError.invalid(`${path}.nodeName`, address.nodeName, p));
  }
  causes.push(...validateNonSpecialIp(ip, `${path}.ip`));
  return causes;
}

function validatePort(port: EndpointPort, requireName: boolean, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = port.name ?? '';
  if (requireName && name === '') causes.push(fieldError.required(`${path}.name`));
  else if (name !== '') causes.push(...validateDns1123Label(name, `${path}.name`));
  const number = port.port ?? 0;
  for (const p of portNumProblems(number)) causes.push(fieldError.invalid(`${path}.port`, number, p));
  const protocol = port.protocol ?? '';
  if (protocol === '') causes.push(fieldError.required(`${path}.protocol`));
  else if (!PORT_PROTOCOLS.includes(protocol)) causes.push(fieldError.notSupported(`${path}.protocol`, protocol, PORT_PROTOCOLS));
  return causes;
}

function subsetsOf(object: KubeObject): EndpointSubset[] {
  return Array.isArray(object.subsets) ? (object.subsets as EndpointSubset[]) : [];
}
