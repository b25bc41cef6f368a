import { spawn } from 'node-pty';

export interface Terminal {
  /** Everything the program wrote to its terminal so far. */
  output(): string;
  write(text: string): void;
  resize(cols: number, rows: number): void;
  /** Ends the program (SIGTERM), as closing its terminal window would. */
  kill(): void;
  /** The program's exit code. */
  readonly exited: Promise<number>;
}

/** Runs a program on a pseudo-terminal of its own, as a user's shell would (kubectl exec -it needs one). */
export function spawnInTerminal(file: string, args: readonly string[], options: { readonly cols: number; readonly rows: number; readonly home: string }): Terminal {
  const term = spawn(file, [...args], { name: 'xterm', cols: options.cols, rows: options.rows, env: { ...process.env, HOME: options.home } });
  let text = '';
  term.onData((data) => (text += data));
  const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
  return { output: () => text, write: (data) => term.write(data), resize: (cols, rows) => term.resize(cols, rows), kill: () => term.kill('SIGTERM'), exited };
}
