import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { StoreConfig } from '../store/open-store.js';
import { endpointsArgument, kekFilesArgument, PREVIOUS_KEK_OPTION_HELP } from './server-command.js';

interface ReencryptOptions {
  home: string;
  store: 'sqlite' | 'etcd';
  etcdEndpoints?: string[];
  identityKekFile?: string;
  previousKekFile?: string[];
}

/**
 * `edgeplane store re-encrypt`: moves everything kept under a key-encryption key — vK8s
 * Secrets, config objects' secret fields, the identity service's and the blindfold key ring's
 * sealed keys — under the current one, and encrypts what is still in the clear.
 */
export function storeCommand(): Command {
  const store = new Command('store').description('Maintenance of the control plane\'s store.');
  store.addCommand(
    new Command('re-encrypt')
      .description('Rewrite every secret kept in the store (vK8s Secrets, config secret fields, identity and blindfold keys) under the current key-encryption key.')
      .addOption(new Option('--home <dir>', 'the server\'s state folder (its SQLite store and default key)').env('EDGEPLANE_HOME').default('.edgeplane'))
      .addOption(new Option('--store <backend>', 'where state is kept').choices(['sqlite', 'etcd']).env('EDGEPLANE_STORE').default('sqlite'))
      .addOption(new Option('--etcd-endpoints <urls>', 'comma-separated etcd client URLs (with --store etcd)').env('EDGEPLANE_ETCD_ENDPOINTS').argParser(endpointsArgument))
      .addOption(new Option('--identity-kek-file <file>', 'the current key-encryption key (default <home>/keys/identity.kek)').env('EDGEPLANE_IDENTITY_KEK_FILE'))
      .addOption(new Option('--previous-kek-file <file>', PREVIOUS_KEK_OPTION_HELP).env('EDGEPLANE_PREVIOUS_KEK_FILES').argParser(kekFilesArgument))
      .addHelpText(
        'after',
        [
          '',
          'Rotating the key-encryption key:',
          '  1. restart every server with --identity-kek-file <new> --previous-kek-file <old>',
          '  2. edgeplane store re-encrypt --identity-kek-file <new> --previous-kek-file <old>',
          '  3. restart the servers with --identity-kek-file <new> only; the old key can be destroyed',
          '',
          'Records already under the current key are left alone; each rewrite is a compare-and-swap,',
          'so servers may keep running. A rewritten Secret gets a new resourceVersion (watchers see',
          'MODIFIED with the same content), as "kubectl get secrets -A -o json | kubectl replace -f -" does.',
        ].join('\n'),
      )
      .action(async (o: ReencryptOptions) => {
        const home = resolve(o.home);
        let config: StoreConfig = { backend: 'sqlite', path: join(home, 'store', 'edgeplane.db') };
        if (o.store === 'etcd') {
          if (o.etcdEndpoints === undefined) throw new Error('--store etcd needs --etcd-endpoints (or EDGEPLANE_ETCD_ENDPOINTS)');
          config = { backend: 'etcd', endpoints: o.etcdEndpoints };
        }
        // Loaded here: other commands stay free of the control plane's modules.
        const [{ openStore, describeStore }, { loadKeyEncryptionKey, withPreviousKeys }, { EnvelopeEncryption }, { reencryptStore }] = await Promise.all([
          import('../store/open-store.js'),
          import('../identity/key-encryption-key.js'),
          import('../common/envelope-encryption.js'),
          import('../server/re-encrypt.js'),
        ]);
        if (config.backend === 'sqlite' && !existsSync(config.path)) throw new Error(`there is no store at ${config.path} (give the server's --home, or --store etcd)`);
        if (o.identityKekFile === undefined && !existsSync(join(home, 'keys', 'identity.kek'))) throw new Error(`there is no key-encryption key at ${join(home, 'keys', 'identity.kek')} (give --identity-kek-file)`);
        const kek = withPreviousKeys(
          loadKeyEncryptionKey({ home, ...(o.identityKekFile === undefined ? {} : { file: resolve(o.identityKekFile) }) }),
          (o.previousKekFile ?? []).map((f) => resolve(f)),
        );
        const encryption = new EnvelopeEncryption({ current: kek, previous: kek.previous ?? [] });
        const say = (line: string): void => void process.stdout.write(`${line}\n`);
        say(`re-encrypting ${describeStore(config)} under key-encryption key ${kek.id}${kek.previous === undefined ? '' : ` (reading previous ${kek.previous.map((k) => k.id).join(', ')})`}`);
        const store = openStore(config);
        try {
          const started = performance.now();
          const counts = await reencryptStore({ store, kek, encryption, progress: say });
          const rewritten = counts.reduce((sum, c) => sum + c.rewritten, 0);
          const read = counts.reduce((sum, c) => sum + c.read, 0);
          say(`done in ${((performance.now() - started) / 1000).toFixed(1)} s: ${rewritten} of ${read} records re-encrypted; everything is under key ${kek.id}`);
        } finally {
          await store.close();
        }
      }),
  );
  return store;
}
