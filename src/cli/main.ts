import { Command, CommanderError } from 'commander';
import { readBuildInfo } from '../server/build-info.js';
import { serverCommand } from './server-command.js';
import { versionCommand } from './version-command.js';

/** The `edgeplane` command line. Resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const build = readBuildInfo();
  const program = new Command('edgeplane')
    .description('Edgeplane: one control plane for workloads on many edge sites.')
    .version(`v${build.version}`, '-V, --version', 'print the version and exit')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  program.addCommand(serverCommand());
  program.addCommand(versionCommand());
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`edgeplane: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
