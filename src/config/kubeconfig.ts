import { stringify } from 'yaml';

/**
 * A kubeconfig for one virtual cluster, named `<namespace>_<vk8s>`, with the platform CA,
 * and a client certificate and key embedded (mTLS). Its server URL includes the vK8s path.
 */
export function kubeconfigFor(options: {
  server: string;
  virtualK8s: { namespace: string; name: string };
  user: string;
  certificate: string;
  key: string;
  ca: string;
}): string {
  const name = `${options.virtualK8s.namespace}_${options.virtualK8s.name}`;
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: `${options.server}/api/vk8s/namespaces/${options.virtualK8s.namespace}/${options.virtualK8s.name}`, 'certificate-authority-data': b64(options.ca) } }],
    users: [{ name: options.user, user: { 'client-certificate-data': b64(options.certificate), 'client-key-data': b64(options.key) } }],
    contexts: [{ name, context: { cluster: name, user: options.user, namespace: options.virtualK8s.namespace } }],
    'current-context': name,
    preferences: {},
  });
}
