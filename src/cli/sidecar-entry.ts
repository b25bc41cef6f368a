/**
 * `edgeplane sidecar` alone: what the runc runtime runs in a pod's sidecar container
 * (`node …/dist/src/cli/sidecar-entry.js --server …`, no `sidecar` word). It loads the sidecar
 * command and what it needs, none of the other commands (server, store, config…): a sidecar
 * starts in every pod, so what its process loads costs once per pod in CPU and memory
 * (docs/RUNTIME.md). `sidecar-entry.test.ts` checks what it loads.
 */
import { runProgram } from './run-program.js';
import { sidecarCommand } from './sidecar-command.js';

const program = sidecarCommand()
  .name('edgeplane-sidecar')
  .showHelpAfterError('(run with --help for usage)')
  .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
process.exitCode = await runProgram(program, process.argv);
