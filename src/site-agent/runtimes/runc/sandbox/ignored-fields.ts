import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';

const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

function containerFields(container: Container, path: string): string[] {
  const found: string[] = [];
  (container.ports ?? []).forEach((port, i) => {
    if ((port.hostPort ?? 0) !== 0) found.push(`${path}.ports[${i}].hostPort (${port.hostPort})`);
    if (port.hostIP !== undefined && port.hostIP !== '') found.push(`${path}.ports[${i}].hostIP`);
  });
  const security = container.securityContext;
  if (security?.procMount !== undefined && security.procMount !== 'Default') found.push(`${path}.securityContext.procMount (${security.procMount})`);
  if (security?.['seLinuxOptions'] != null) found.push(`${path}.securityContext.seLinuxOptions`);
  const appArmor = security?.['appArmorProfile'] as { type?: unknown } | undefined;
  if (appArmor?.type === 'Localhost') found.push(`${path}.securityContext.appArmorProfile (Localhost)`);
  return found;
}

/**
 * What a pod asks for that a runc site does not do, so that the pod is told rather than
 * silently run otherwise (a site that runs them at all is a tenant's customer edge: a
 * regional edge refuses them with Pod Security baseline): host namespaces (every pod gets its
 * own network, PID and IPC namespaces), host ports (a pod is reached at its pod IP or through
 * a Service), an unmasked /proc (the site masks it always), SELinux options and Localhost
 * AppArmor profiles (the site's machines enforce neither). Field paths as kube names them. Pure.
 */
export function ignoredPodFields(spec: PodSpec, annotations: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  if (spec.hostNetwork === true) found.push('spec.hostNetwork');
  if (spec.hostPID === true) found.push('spec.hostPID');
  if ((spec as { hostIPC?: unknown }).hostIPC === true) found.push('spec.hostIPC');
  if (spec.securityContext?.['seLinuxOptions'] != null) found.push('spec.securityContext.seLinuxOptions');
  (spec.initContainers ?? []).forEach((c, i) => found.push(...containerFields(c, `spec.initContainers[${i}]`)));
  (spec.containers ?? []).forEach((c, i) => found.push(...containerFields(c, `spec.containers[${i}]`)));
  for (const [key, value] of Object.entries(annotations)) {
    if (key.startsWith(APPARMOR_ANNOTATION) && value.startsWith('localhost/')) found.push(`metadata.annotations[${key}] (${value})`);
  }
  return found;
}

/** The Event's message for what the pod asked for and does not get. */
export function ignoredFieldsMessage(fields: readonly string[]): string {
  return `this site runs every pod in its own network, PID and IPC namespaces with /proc masked, and enforces neither SELinux nor AppArmor; ignored: ${fields.join(', ')}`;
}
