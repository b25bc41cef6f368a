import { spawn } from 'node:child_process';

/** Runs a program to its end; its stdout, or an error naming its stderr. */
export function runProgram(file: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env === undefined ? {} : { env }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`))));
  });
}
