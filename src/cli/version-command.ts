import { Command, Option } from 'commander';
import { readBuildInfo, versionDocument } from '../server/build-info.js';

export function versionCommand(): Command {
  return new Command('version')
    .description('Print the version of this edgeplane build.')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((options: { output: 'text' | 'json' }) => {
      const doc = versionDocument(readBuildInfo());
      process.stdout.write(
        options.output === 'json'
          ? JSON.stringify(doc, null, 2) + '\n'
          : `edgeplane ${doc['gitVersion']} (commit ${doc['gitCommit']}, built ${doc['buildDate']}, node ${doc['nodeVersion']})\n`,
      );
    });
}
