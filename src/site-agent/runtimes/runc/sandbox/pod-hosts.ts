/** The pod's /etc/hosts as kubelet writes it: loopback names, then the pod's address and hostname. */
export function podHostsFile(podIP: string, hostname: string): string {
  return [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
    `${podIP}\t${hostname}`,
    '',
  ].join('\n');
}
