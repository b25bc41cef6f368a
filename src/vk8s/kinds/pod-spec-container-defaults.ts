import { defaultPullPolicy } from './pod-spec-image.js';
import { canonicalQuantity, defaultResourceList } from '../../api/pod-spec-resources.js';
import type { Container, Handler, ObjectFieldSelector, Probe, ResourceFieldSelector } from '../../api/pod-spec-types.js';

/**
 * core/v1 defaulting of a container (SetDefaults_Container and the defaulters of the types
 * inside it), in place: pull policy from the image tag, termination message path and policy,
 * port protocol, probe timings, httpGet path and scheme, downward-API field versions, and
 * canonical resource quantities. `resources: {}` is always present, as Go serializes it.
 */
export function defaultContainer(container: Container, hostNetwork: boolean): void {
  if (container.imagePullPolicy == null || container.imagePullPolicy === '') container.imagePullPolicy = defaultPullPolicy(container.image);
  if (container.terminationMessagePath == null || container.terminationMessagePath === '') container.terminationMessagePath = '/dev/termination-log';
  if (container.terminationMessagePolicy == null || container.terminationMessagePolicy === '') container.terminationMessagePolicy = 'File';
  for (const port of container.ports ?? []) {
    if (port.protocol == null || port.protocol === '') port.protocol = 'TCP';
    // defaultHostNetworkPorts: on the host network a container port is also the host port.
    if (hostNetwork && (port.hostPort == null || port.hostPort === 0) && port.containerPort != null) port.hostPort = port.containerPort;
  }
  for (const env of container.env ?? []) {
    if (env.valueFrom?.fieldRef != null) defaultFieldRef(env.valueFrom.fieldRef);
    if (env.valueFrom?.resourceFieldRef != null) defaultResourceFieldRef(env.valueFrom.resourceFieldRef);
  }
  for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
    if (probe != null) defaultProbe(probe);
  }
  if (container.lifecycle?.postStart != null) defaultHandler(container.lifecycle.postStart);
  if (container.lifecycle?.preStop != null) defaultHandler(container.lifecycle.preStop);
  container.resources ??= {};
  defaultResourceList(container.resources.limits);
  defaultResourceList(container.resources.requests);
}

/** SetDefaults_Probe: timeout 1s, period 10s, success 1, failure 3 (zero counts as unset). */
function defaultProbe(probe: Probe): void {
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  defaultHandler(probe);
}

/** SetDefaults_HTTPGetAction: path `/`, scheme HTTP. */
function defaultHandler(handler: Handler): void {
  const http = handler.httpGet;
  if (http == null) return;
  if (http.path == null || http.path === '') http.path = '/';
  if (http.scheme == null || http.scheme === '') http.scheme = 'HTTP';
}

/** SetDefaults_ObjectFieldSelector: apiVersion v1. */
export function defaultFieldRef(ref: ObjectFieldSelector): void {
  if (ref.apiVersion == null || ref.apiVersion === '') ref.apiVersion = 'v1';
}

/** The divisor is a non-pointer Quantity: Go always serializes it, `"0"` when unset. */
export function defaultResourceFieldRef(ref: ResourceFieldSelector): void {
  ref.divisor = ref.divisor == null ? '0' : canonicalQuantity(ref.divisor);
}
