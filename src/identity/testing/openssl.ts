import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPath } from '../../testing/tools.js';

/**
 * Runs the `openssl` command with the given files (text or DER) written to a temporary folder
 * (tests: standard tools on our certificates). `encoding: 'latin1'` keeps binary output byte for byte.
 */
export async function openssl(args: (files: Record<string, string>) => string[], files: Record<string, string | Buffer>, encoding: BufferEncoding = 'utf8'): Promise<{ status: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-openssl-'));
  try {
    const paths: Record<string, string> = {};
    for (const [name, contents] of Object.entries(files)) {
      paths[name] = join(dir, name);
      writeFileSync(paths[name], contents);
    }
    const binary = toolPath('openssl');
    return await new Promise((resolve) => {
      execFile(binary, args(paths), { encoding }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ status: code, output: stdout + stderr });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl verify -CAfile ca [-untrusted chain] [-purpose p] [-attime t] cert`. */
export function opensslVerify(ca: string, certificate: string, options: { untrusted?: string; purpose?: 'sslserver' | 'sslclient'; at?: Date } = {}): Promise<{ status: number; output: string }> {
  return openssl(
    (f) => [
      'verify',
      '-CAfile',
      f['ca'] ?? '',
      ...(f['untrusted'] === undefined ? [] : ['-untrusted', f['untrusted']]),
      ...(options.purpose === undefined ? [] : ['-purpose', options.purpose]),
      ...(options.at === undefined ? [] : ['-attime', String(Math.floor(options.at.getTime() / 1000))]),
      f['cert'] ?? '',
    ],
    { ca, cert: certificate, ...(options.untrusted === undefined ? {} : { untrusted: options.untrusted }) },
  );
}

/** `openssl x509 -noout -text` of the first certificate in `pem`. */
export async function opensslText(pem: string): Promise<string> {
  const { status, output } = await openssl((f) => ['x509', '-noout', '-text', '-in', f['cert'] ?? ''], { cert: pem });
  if (status !== 0) throw new Error(`openssl x509 failed: ${output}`);
  return output;
}
