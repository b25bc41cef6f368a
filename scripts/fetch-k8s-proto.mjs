// Fetches the Kubernetes protobuf schemas (the `generated.proto` files of the served API groups
// and of apimachinery, Apache-2.0) that decode `application/vnd.kubernetes.protobuf` write bodies
// (kubectl >= 1.32 sends typed creates in protobuf), at build time: they are not committed. No
// npm package ships them, so they come from Debian's kubernetes source tarball (pinned; the source
// Debian's kubernetes-client 1.20.2 is built from), whose sha256 is checked; `tar` extracts only
// the listed files. The field numbers of these messages are the same in 1.17 for the served kinds.
// The result is cached in .cache/ (git-ignored) and copied to dist/k8s-proto/, laid out by the
// files' import paths (k8s.io/api/core/v1/generated.proto, ...).
//
// The protobuf form cannot tell a Go pointer field set to its zero value (replicas: 0) from a plain
// field left empty (gogo writes every non-pointer field, zero or not), which the JSON form can:
// the Go structs (types.go) are read for that fact and the result written to keep-zero.json,
// `{ "<proto package>.<Message>": ["<field>", ...] }`: the fields whose zero value the JSON
// form carries — pointers, and fields whose json tag lacks omitempty.
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
/** The Go structs of the packages above whose messages are decoded field by field. */
const TYPES = FILES.filter((f) => !/(resource|intstr|runtime|schema)\/generated\.proto$/.test(f)).map((f) => f.replace(/generated\.proto$/, 'types.go'));
const cached = join('.cache', 'k8s-proto-1.20.2');
const marker = join(cached, 'complete');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function fail(message) {
  console.error(message);
  process.exit(1);
}

const complete = () => existsSync(marker) && readFileSync(marker, 'utf8') === SHA256 && FILES.every((f) => existsSync(join(cached, f))) && existsSync(join(cached, 'keep-zero.json'));

/** keep-zero.json's entries for one types.go (see above). */
function keepZeroFields(goPath, source) {
  const pkg = goPath.replace(/\/types\.go$/, '').replaceAll('/', '.');
  const result = {};
  let struct;
  for (const line of source.split('\n')) {
    const start = /^type (\w+) struct \{/.exec(line);
    if (start) {
      struct = start[1];
      continue;
    }
    if (line.startsWith('}')) struct = undefined;
    if (struct === undefined) continue;
    const field = /^\t\w+\s+(\*?)([\w.]+)\s+`(.*)`/.exec(line);
    if (!field) continue;
    const [, pointer, , tag] = field;
    const json = /json:"([^"]*)"/.exec(tag)?.[1].split(',');
    const name = /protobuf:"[^"]*name=(\w+)/.exec(tag)?.[1];
    if (json === undefined || name === undefined) continue; // the decoder consults it for scalar fields only
    if (pointer === '*' || !json.includes('omitempty')) (result[`${pkg}.${struct}`] ??= []).push(name);
  }
  return result;
}

if (!complete()) {
  process.stderr.write(`fetching the Kubernetes protobuf schemas from ${URL}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-k8s-proto-'));
  try {
    const tarball = join(dir, 'kubernetes.orig.tar.gz');
    try {
      // Node's own fetch: a fresh machine need not have curl.
      const response = await fetch(URL);
      if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
      writeFileSync(tarball, Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      fail(`could not download ${URL} (the build needs its Kubernetes generated.proto files): ${String(error?.message ?? error).trim()}`);
    }
    const actual = sha256(readFileSync(tarball));
    if (actual !== SHA256) fail(`${URL} has sha256 ${actual}, expected ${SHA256}; refusing to use it`);
    execFileSync('tar', ['-xzf', tarball, '-C', dir, ...[...FILES, ...TYPES].map((f) => PREFIX + f)]);
    const staged = join(dir, 'staged');
    for (const f of FILES) cpSync(join(dir, PREFIX, f), join(staged, f));
    const keepZero = Object.assign({}, ...TYPES.map((f) => keepZeroFields(f, readFileSync(join(dir, PREFIX, f), 'utf8'))));
    writeFileSync(join(staged, 'keep-zero.json'), JSON.stringify(keepZero, null, 1) + '\n');
    writeFileSync(join(staged, 'complete'), SHA256);
    mkdirSync('.cache', { recursive: true });
    rmSync(cached, { recursive: true, force: true });
    renameSync(staged, cached);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const out = process.argv[2] ?? 'dist'; // the build's folder (scripts/build.mjs passes its staging folder)
for (const f of [...FILES, 'keep-zero.json']) cpSync(join(cached, f), join(out, 'k8s-proto', f));
