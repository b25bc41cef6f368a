import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { ImageStore } from '../site-agent/runtimes/runc/index.js';
import { age, render, renderTable } from './output.js';

interface StoreOptions {
  home: string;
  umoci?: string;
}

function homeOption(): Option {
  return new Option('--home <dir>', 'the site\'s home folder (the image store is <home>/images)').env('EDGEPLANE_SITE_HOME').default('.edgeplane-site');
}

function umociOption(): Option {
  return new Option('--umoci <path>', 'the umoci binary that unpacks layers (Debian\'s umoci)').env('EDGEPLANE_UMOCI');
}

async function openStore(o: StoreOptions): Promise<ImageStore> {
  // Loaded here: other commands stay free of the runtime's modules.
  const { ImageStore, siteImageStoreDir, findUmoci } = await import('../site-agent/runtimes/runc/index.js');
  return new ImageStore({ dir: siteImageStoreDir(resolve(o.home)), umoci: findUmoci(o.umoci === undefined ? {} : { umoci: o.umoci }) });
}

/**
 * `edgeplane image import|list|remove`: the site's local image store. Sites reach no
 * registry; images come in as OCI archives or image-layout folders, verified by digest.
 */
export function imageCommand(): Command {
  const image = new Command('image').description('The site\'s local OCI image store (sites reach no registry: images are imported).');
  image.addCommand(
    new Command('import')
      .description('Add an OCI image to the site\'s store from an OCI archive or an OCI image-layout folder.')
      .argument('<source>', 'an OCI archive (skopeo copy … oci-archive:<file>, buildah push … oci-archive:<file>) or an OCI image-layout folder')
      .addOption(new Option('--name <name:tag>', 'the name to store it under (default: the image\'s org.opencontainers.image.ref.name)'))
      .addOption(homeOption())
      .addOption(umociOption())
      .addHelpText(
        'after',
        `
Every blob (index, manifest, config, layers) is checked against its sha256 digest and size; a
mismatch refuses the whole image and stores nothing. Layers are unpacked in order (whiteouts
applied) into one read-only root per manifest digest, so two names of one image share it.
Names are normalised as Docker does: busybox = busybox:latest = docker.io/library/busybox:latest.

Making an archive elsewhere:
  skopeo copy docker://docker.io/library/busybox:1.36 oci-archive:busybox.tar:busybox:1.36
  edgeplane image import busybox.tar --home <site home>`,
      )
      .action(async (source: string, o: StoreOptions & { name?: string }) => {
        const store = await openStore(o);
        const started = performance.now();
        const imported = await store.import(resolve(source), {
          ...(o.name === undefined ? {} : { name: o.name }),
          progress: (line) => void process.stderr.write(`${line}\n`),
        });
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        process.stdout.write(`${imported.name} ${imported.digest}${imported.alreadyPresent ? ' (already stored: name added)' : ''} in ${seconds} s\n`);
      }),
  );
  image.addCommand(
    new Command('list')
      .alias('ls')
      .description('List the images in the site\'s store.')
      .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json', 'yaml']).default('table'))
      .addOption(homeOption())
      .action(async (o: StoreOptions & { output: 'table' | 'json' | 'yaml' }) => {
        const images = await (await openStore(o)).list();
        if (o.output !== 'table') process.stdout.write(render(images, o.output));
        else process.stdout.write(renderTable(['NAME', 'DIGEST', 'IMPORTED'], images.map((i) => [i.name, i.digest, age(i.importedAt)])));
      }),
  );
  image.addCommand(
    new Command('remove')
      .alias('rm')
      .description('Remove a name from the site\'s store, and the image when no name is left and no container runs on it.')
      .argument('<name>', 'the image\'s name (busybox:1.36), or name@sha256:… for every name of it')
      .addOption(homeOption())
      .action(async (name: string, o: StoreOptions) => {
        const { untagged, deleted } = await (await openStore(o)).remove(name);
        for (const n of untagged) process.stdout.write(`Untagged: ${n}\n`);
        for (const d of deleted) process.stdout.write(`Deleted: ${d}\n`);
      }),
  );
  return image;
}
