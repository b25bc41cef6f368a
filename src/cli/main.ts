import { Command } from 'commander';
import { readBuildInfo } from '../server/build-info.js';
import { ServerError } from './api-client.js';
import { configCommand } from './config-command.js';
import { identityCommand } from './identity-command.js';
import { imageCommand } from './image-command.js';
import { kubeconfigCommand } from './kubeconfig-command.js';
import { runProgram } from './run-program.js';
import { secretCommand } from './secret-command.js';
import { serverCommand } from './server-command.js';
import { sidecarCommand } from './sidecar-command.js';
import { siteCommand } from './site-command.js';
import { storeCommand } from './store-command.js';
import { tokenCommand } from './token-command.js';
import { versionCommand } from './version-command.js';

/** The `edgeplane` command line. Resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const build = readBuildInfo();
  const program = new Command('edgeplane')
    .description('Edgeplane: one control plane for workloads on many edge sites.')
    .version(`v${build.version}`, '-V, --version', 'print the version and exit')
    .showHelpAfterError('(run with --help for usage)')
    // Options belong to the command they follow, so `site` and `site token` may both have --home/--server.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  program.addCommand(serverCommand());
  program.addCommand(versionCommand());
  program.addCommand(configCommand());
  program.addCommand(tokenCommand());
  program.addCommand(kubeconfigCommand());
  program.addCommand(siteCommand());
  program.addCommand(imageCommand());
  program.addCommand(sidecarCommand());
  program.addCommand(secretCommand());
  program.addCommand(identityCommand());
  program.addCommand(storeCommand());
  return runProgram(program, argv, (error) => (error instanceof ServerError ? `Error from server (${error.reason}): ${error.message}` : undefined));
}
