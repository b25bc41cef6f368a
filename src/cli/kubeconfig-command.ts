import { randomBytes } from 'node:crypto';
import { Command, Option } from 'commander';
import { writeFileAtomic } from '../common/atomic-file.js';
import { addConnectionOptions, ApiClient, type ConnectionOptions } from './api-client.js';

interface KubeconfigOptions extends ConnectionOptions {
  namespace: string;
  vk8s: string;
  name?: string;
  expirationDays: number;
  file?: string;
}

/**
 * `edgeplane kubeconfig --namespace N --vk8s V`: issues a KUBE_CONFIG credential for one
 * virtual cluster (client certificate and key inside, the platform CA, the cluster's URL)
 * and prints it, or writes it to `--file` with mode 0600.
 */
export function kubeconfigCommand(): Command {
  return addConnectionOptions(new Command('kubeconfig'))
    .description('Issue a kubeconfig for a virtual cluster (a KUBE_CONFIG credential) and print it or write it to a file.')
    .requiredOption('-n, --namespace <namespace>', 'the namespace of the virtual_k8s object')
    .requiredOption('--vk8s <name>', 'the virtual_k8s object')
    .addOption(new Option('--name <credential>', 'the credential name (default: kubeconfig-<namespace>-<vk8s>-<random>)'))
    .addOption(new Option('--expiration-days <days>', 'days until it expires (1–90)').default(30).argParser((v) => Number(v)))
    .addOption(new Option('--file <path>', 'write the kubeconfig here (mode 0600) instead of printing it'))
    .action(async (o: KubeconfigOptions) => {
      const name = o.name ?? `kubeconfig-${o.namespace}-${o.vk8s}-${randomBytes(3).toString('hex')}`;
      const issued = await new ApiClient(o).call<{ data: string }>('POST', '/api/web/namespaces/system/api_credentials', {
        name,
        namespace: 'system',
        expiration_days: o.expirationDays,
        spec: { type: 'KUBE_CONFIG', virtual_k8s_namespace: o.namespace, virtual_k8s_name: o.vk8s },
      });
      const kubeconfig = Buffer.from(issued.data, 'base64').toString('utf8');
      if (o.file === undefined) {
        process.stdout.write(kubeconfig);
        return;
      }
      writeFileAtomic(o.file, kubeconfig, 0o600);
      process.stderr.write(`kubeconfig for ${o.namespace}/${o.vk8s} written to ${o.file} (credential "${name}")\n`);
    });
}
