// Fetches gnostic's OpenAPIv2.proto (Apache-2.0), the schema of the protobuf form of
// `/openapi/v2` that kubectl 1.20 reads, at build time: it is not committed. No npm package
// ships it, so it comes from Debian's golang-github-googleapis-gnostic-dev (pinned version;
// `apt-get download` fetches the .deb without installing it, `dpkg-deb -x` unpacks it) and its
// sha256 is checked. The result is cached in .cache/ (git-ignored) and copied to dist/gnostic/.
// Its one import, google/protobuf/any.proto, is among the common types protobufjs ships.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGE = 'golang-github-googleapis-gnostic-dev';
const VERSION = '0.2.0-4';
const MEMBER = 'usr/share/gocode/src/github.com/googleapis/gnostic/openapiv2/OpenAPIv2.proto';
const SHA256 = 'acfd3a5f32c730e2f8b6dc32b3a3d63664913c0428a91517aea9b5f9a93b8bb2';
const cached = join('.cache', 'gnostic-OpenAPIv2.proto');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function run(command, args, cwd) {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** `apt-get download` needs the package lists; only root can refresh them. */
function download(dir) {
  const spec = `${PACKAGE}=${VERSION}`;
  try {
    run('apt-get', ['download', spec], dir);
    return;
  } catch (error) {
    if (process.getuid?.() !== 0) {
      fail(
        `could not download Debian's ${spec} (${String(error.stderr ?? error).trim()}); ` +
          'the build needs it for gnostic\'s OpenAPIv2.proto: run "apt-get update" as root, then build again',
      );
    }
  }
  process.stderr.write('refreshing the apt package lists (apt-get update)\n');
  try {
    run('apt-get', ['update'], dir);
  } catch (error) {
    fail(`"apt-get update" failed, so Debian's ${spec} (gnostic's OpenAPIv2.proto) cannot be fetched: ${String(error.stderr ?? error).trim()}`);
  }
  try {
    run('apt-get', ['download', spec], dir);
  } catch (error) {
    fail(`could not download Debian's ${spec} even after "apt-get update": ${String(error.stderr ?? error).trim()}`);
  }
}

if (!existsSync(cached) || sha256(readFileSync(cached)) !== SHA256) {
  process.stderr.write(`fetching gnostic's OpenAPIv2.proto from Debian's ${PACKAGE} ${VERSION}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-gnostic-'));
  try {
    chmodSync(dir, 0o755); // apt downloads as the unprivileged _apt user when it can reach the folder
    download(dir);
    const deb = readdirSync(dir).find((f) => f.endsWith('.deb'));
    if (deb === undefined) fail(`apt-get download left no .deb for ${PACKAGE} in ${dir}`);
    run('dpkg-deb', ['-x', deb, 'unpacked'], dir);
    const proto = readFileSync(join(dir, 'unpacked', MEMBER));
    const actual = sha256(proto);
    if (actual !== SHA256) fail(`OpenAPIv2.proto from ${PACKAGE} ${VERSION} has sha256 ${actual}, expected ${SHA256}; refusing to use it`);
    mkdirSync('.cache', { recursive: true });
    writeFileSync(cached, proto);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const out = process.argv[2] ?? 'dist'; // the build's folder (scripts/build.mjs passes its staging folder)
mkdirSync(join(out, 'gnostic'), { recursive: true });
copyFileSync(cached, join(out, 'gnostic', 'OpenAPIv2.proto'));
