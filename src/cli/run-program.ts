import { type Command, CommanderError } from 'commander';

/**
 * Parses `argv` with `program` and runs its action; resolves to the process exit code.
 * Commander exits nowhere (usage errors and --help give their codes); an error an action
 * throws is one line on stderr, `describe`'s when it knows the error, and exit code 1.
 */
export async function runProgram(program: Command, argv: readonly string[], describe: (error: unknown) => string | undefined = () => undefined): Promise<number> {
  const exitOverrideAll = (command: Command): void => {
    command.exitOverride();
    command.commands.forEach(exitOverrideAll);
  };
  exitOverrideAll(program);
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`${describe(error) ?? `${program.name()}: ${error instanceof Error ? error.message : String(error)}`}\n`);
    return 1;
  }
}
