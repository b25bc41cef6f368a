// Fetches the Kubernetes protobuf schemas (the `generated.proto` files of the served API groups
// and of apimachinery, Apache-2.0) that decode `application/vnd.kubernetes.protobuf` write bodies
// (kubectl >= 1.32 sends typed creates in protobuf), at build time: they are not committed. No
// npm package ships them, so they come from Debian's kubernetes source tarball (pinned; the source
// Debian's kubernetes-client 1.20.2 is built from), whose sha256 is checked; `tar` extracts only
// the listed files. The field numbers of these messages are the same in 1.17 for the served kinds.
// The result is cached in .cache/ (git-ignored) and copied to dist/k8s-proto/, laid out by the
// files' import paths (k8s.io/api/core/v1/generated.proto, ...).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const URL = 'http://deb.debian.org/debian/pool/main/k/kubernetes/kubernetes_1.20.5+really1.20.2.orig.tar.gz';
const SHA256 = 'b83c0780efb182d928dc63d46488a847f161f04e40a94b96bf5247dd671ecdfc';
const PREFIX = 'kubernetes-1.20.2/staging/src/';
/** Import paths of the needed files: the served groups' schemas and everything they import. */
const FILES = [
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/apps/v1/generated.proto',
  'k8s.io/api/batch/v1/generated.proto',
  'k8s.io/api/batch/v1beta1/generated.proto',
  'k8s.io/api/autoscaling/v1/generated.proto',
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
  'k8s.io/apimachinery/pkg/api/resource/generated.proto',
  'k8s.io/apimachinery/pkg/util/intstr/generated.proto',
  'k8s.io/apimachinery/pkg/runtime/generated.proto',
  'k8s.io/apimachinery/pkg/runtime/schema/generated.proto',
];
const cached = join('.cache', 'k8s-proto-1.20.2');
const marker = join(cached, 'complete');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function fail(message) {
  console.error(message);
  process.exit(1);
}

const complete = () => existsSync(marker) && readFileSync(marker, 'utf8') === SHA256 && FILES.every((f) => existsSync(join(cached, f)));

if (!complete()) {
  process.stderr.write(`fetching the Kubernetes protobuf schemas from ${URL}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-k8s-proto-'));
  try {
    const tarball = join(dir, 'kubernetes.orig.tar.gz');
    try {
      execFileSync('curl', ['--silent', '--show-error', '--fail', '--location', '--output', tarball, URL], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      fail(`could not download ${URL} (the build needs its Kubernetes generated.proto files): ${String(error.stderr ?? error).trim()}`);
    }
    const actual = sha256(readFileSync(tarball));
    if (actual !== SHA256) fail(`${URL} has sha256 ${actual}, expected ${SHA256}; refusing to use it`);
    execFileSync('tar', ['-xzf', tarball, '-C', dir, ...FILES.map((f) => PREFIX + f)]);
    const staged = join(dir, 'staged');
    for (const f of FILES) cpSync(join(dir, PREFIX, f), join(staged, f));
    writeFileSync(join(staged, 'complete'), SHA256);
    mkdirSync('.cache', { recursive: true });
    rmSync(cached, { recursive: true, force: true });
    renameSync(staged, cached);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
for (const f of FILES) cpSync(join(cached, f), join('dist', 'k8s-proto', f));
