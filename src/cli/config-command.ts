import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { parse } from 'yaml';
import { NAMESPACE_KIND, NAMESPACED_KINDS, type ConfigKind } from '../config/kinds/index.js';
import { RESPONSE_FORMATS } from '../config/get-response.js';
import { addConnectionOptions, ApiClient, type ConnectionOptions } from './api-client.js';
import { age, render, renderTable, type OutputFormat } from './output.js';

interface Options extends ConnectionOptions {
  namespace: string;
  file?: string;
  output?: OutputFormat;
  responseFormat?: string;
  labelFilter?: string;
  failIfReferred?: boolean;
}

const KIND_NAMES = [...NAMESPACED_KINDS.keys(), 'namespace'];

/** Accepts a kind or its plural, with - or _: `dns_domain`, `dns_domains`, `dns-domain`. */
function kindOf(name: string): ConfigKind {
  const n = name.replace(/-/g, '_');
  if (n === 'namespace' || n === 'namespaces') return NAMESPACE_KIND;
  const kind = NAMESPACED_KINDS.get(n) ?? (n.endsWith('s') ? NAMESPACED_KINDS.get(n.slice(0, -1)) : undefined);
  if (kind === undefined) throw new Error(`unknown kind "${name}"; kinds: ${KIND_NAMES.join(', ')}`);
  return kind;
}

function collectionPath(kind: ConfigKind, namespace: string): string {
  return kind === NAMESPACE_KIND ? '/api/web/namespaces' : `/api/${kind.slug}/namespaces/${namespace}/${kind.kind}s`;
}

function readObject(file: string): unknown {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  try {
    return parse(text) as unknown;
  } catch (error) {
    throw new Error(`${file} is not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function write(text: string): void {
  process.stdout.write(text);
}

function common(command: Command): Command {
  return addConnectionOptions(command).addOption(new Option('-n, --namespace <ns>', 'namespace of the object').default('default'));
}

/** `edgeplane config get|list|create|replace|delete <kind> [name]`. */
export function configCommand(): Command {
  const config = new Command('config').description(`Manage configuration objects (${KIND_NAMES.join(', ')}).`);

  config.addCommand(
    common(new Command('get'))
      .description('Show one object.')
      .argument('<kind>')
      .argument('<name>')
      .addOption(new Option('-o, --output <format>').choices(['json', 'yaml', 'table']).default('yaml'))
      .addOption(new Option('--response-format <format>', `one of ${RESPONSE_FORMATS.join(', ')} or 0–6`))
      .action(async (kindName: string, name: string, o: Options) => {
        const kind = kindOf(kindName);
        const query = o.responseFormat === undefined ? '' : `?response_format=${encodeURIComponent(o.responseFormat)}`;
        const object = await new ApiClient(o).call(`GET`, `${collectionPath(kind, o.namespace)}/${name}${query}`);
        if (o.output === 'table') {
          const m = object['metadata'] as Record<string, string> | null;
          const sm = object['system_metadata'] as Record<string, string> | null;
          write(renderTable(['NAME', 'NAMESPACE', 'RESOURCE_VERSION', 'AGE'], [[m?.['name'] ?? name, m?.['namespace'] ?? o.namespace, String(object['resource_version']), age(sm?.['creation_timestamp'])]]));
        } else {
          write(render(object, o.output ?? 'yaml'));
        }
      }),
  );

  config.addCommand(
    common(new Command('list'))
      .description('List the objects of a kind in a namespace.')
      .argument('<kind>')
      .addOption(new Option('-o, --output <format>').choices(['json', 'yaml', 'table']).default('table'))
      .addOption(new Option('-l, --label-filter <selector>', 'Kubernetes label selector, e.g. "app=web,tier!=db"'))
      .action(async (kindName: string, o: Options) => {
        const kind = kindOf(kindName);
        const query = new URLSearchParams({ report_fields: 'true', ...(o.labelFilter === undefined ? {} : { label_filter: o.labelFilter }) });
        const list = await new ApiClient(o).call<{ items: Array<Record<string, unknown>> }>('GET', `${collectionPath(kind, o.namespace)}?${query.toString()}`);
        if (o.output === 'table') {
          const rows = list.items.map((i) => {
            const labels = Object.entries((i['labels'] as Record<string, string> | undefined) ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
            const created = (i['system_metadata'] as Record<string, string> | null)?.['creation_timestamp'];
            return [String(i['name']), String(i['namespace']), labels || '<none>', age(created)];
          });
          write(rows.length === 0 ? `No ${kind.kind} objects found in namespace ${o.namespace}.\n` : renderTable(['NAME', 'NAMESPACE', 'LABELS', 'AGE'], rows));
        } else {
          write(render(list, o.output ?? 'json'));
        }
      }),
  );

  for (const verb of ['create', 'replace'] as const) {
    config.addCommand(
      common(new Command(verb))
        .description(verb === 'create' ? 'Create an object from a YAML or JSON file ({metadata, spec}).' : 'Replace an object from a YAML or JSON file.')
        .argument('<kind>')
        .argument('[name]', 'the object (default: metadata.name of the file)')
        .requiredOption('-f, --file <file>', 'YAML or JSON file, - for standard input')
        .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
        .action(async (kindName: string, name: string | undefined, o: Options) => {
          const kind = kindOf(kindName);
          const body = readObject(o.file ?? '-') as { metadata?: { name?: string } };
          const target = name ?? body.metadata?.name;
          if (target === undefined) throw new Error('the file has no metadata.name and no name was given');
          const client = new ApiClient(o);
          const result = verb === 'create' ? await client.call('POST', collectionPath(kind, o.namespace), body) : await client.call('PUT', `${collectionPath(kind, o.namespace)}/${target}`, body);
          write(o.output === undefined ? `${kind.kind} "${target}" ${verb === 'create' ? 'created' : 'replaced'}\n` : render(result, o.output as 'json' | 'yaml'));
        }),
    );
  }

  config.addCommand(
    common(new Command('delete'))
      .description('Delete an object (a namespace: with everything in it).')
      .argument('<kind>')
      .argument('<name>')
      .option('--fail-if-referred', 'refuse while other objects refer to it')
      .action(async (kindName: string, name: string, o: Options) => {
        const kind = kindOf(kindName);
        const client = new ApiClient(o);
        if (kind === NAMESPACE_KIND) await client.call('POST', `/api/web/namespaces/${name}/cascade_delete`);
        else await client.call('DELETE', `${collectionPath(kind, o.namespace)}/${name}`, { namespace: o.namespace, name, fail_if_referred: o.failIfReferred === true });
        write(`${kind.kind} "${name}" deleted\n`);
      }),
  );
  return config;
}
