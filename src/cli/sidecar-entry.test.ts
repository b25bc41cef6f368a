import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { IdentityTestServer } from '../sidecar/testing/identity-test-server.js';

const SIDECAR_ENTRY = new URL('./sidecar-entry.js', import.meta.url).pathname;
const BIN = new URL('../../../bin/edgeplane.js', import.meta.url).pathname;

/**
 * Node arguments that append every module the process loads to `file`, one per line: ES modules
 * (and CommonJS ones imported from them) by a module-customization `load` hook, CommonJS ones
 * required from CommonJS by wrapping `Module._load`.
 */
function moduleTraceArgs(file: string): string[] {
  const hooks = `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }`;
  const register = `import Module, { register } from 'node:module';
import { appendFileSync } from 'node:fs';
const file = ${JSON.stringify(file)};
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)}, { data: file });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const exported = load.apply(this, arguments);
  try { appendFileSync(file, 'cjs ' + Module._resolveFilename(request, parent, isMain) + '\\n'); } catch {}
  return exported;
};`;
  return ['--import', `data:text/javascript,${encodeURIComponent(register)}`];
}

/**
 * What must never load in a pod's sidecar: the control plane, the site agent and the packages
 * only they use; pino, jose and find-my-way, which the sidecar does without (their ~100
 * modules cost every pod's sidecar ~20 MB and 0.1 CPU-s at start).
 */
const NOT_IN_SIDECAR = [
  /\/src\/(server|store|config|vk8s|site-plane|site-agent|controllers|identity|registry|auth|apimachinery)\//,
  /\/node_modules\/(better-sqlite3|fastify|etcd3|ajv|yaml|protobufjs|@peculiar|prom-client|node-pty|jose|find-my-way|pino|thread-stream)\//,
];
const notInSidecar = (modules: readonly string[]): string[] => modules.filter((m) => NOT_IN_SIDECAR.some((pattern) => pattern.test(m)));

describe('the sidecar entry point (what a runc pod runs)', () => {
  let server: IdentityTestServer;
  let dir: string;
  before(async () => {
    server = await IdentityTestServer.start();
    dir = mkdtempSync(join(tmpdir(), 'sidecar-entry-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts a sidecar that becomes READY, without loading any server-only module, and exits 0 on SIGTERM', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, await server.mintToken());
    const trace = join(dir, 'modules.txt');
    const stateFile = join(dir, 'state.json');
    const args = [...moduleTraceArgs(trace), SIDECAR_ENTRY, '--server', server.url, '--token-file', tokenFile, '--identity-dir', join(dir, 'identity'), '--state-file', stateFile, '--listen', '127.0.0.1:0', '--log-format', 'json'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const state = (): string => (existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { state: string }).state : 'none');
    for (let i = 0; i < 500 && state() !== 'READY' && child.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(state(), 'READY', output);
    assert.ok(existsSync(join(dir, 'identity', 'server.crt')));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
    assert.match(output, /"msg":"sidecar stopped"/);

    const modules = readFileSync(trace, 'utf8').split('\n');
    // The trace sees the sidecar, and CommonJS modules required by CommonJS ones (commander's).
    assert.ok(modules.some((m) => m.endsWith('/src/sidecar/start-sidecar.js')), 'the trace lists ES modules');
    assert.ok(modules.some((m) => /^cjs .*\/node_modules\/commander\/lib\/command\.js$/.test(m)), 'the trace lists CommonJS modules required by CommonJS ones');
    assert.deepEqual(notInSidecar(modules), []);
  });

  it('the full command line does load them (what the check above would catch)', () => {
    const trace = join(dir, 'full-modules.txt');
    const help = spawnSync(process.execPath, [...moduleTraceArgs(trace), BIN, 'sidecar', '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    const loaded = notInSidecar(readFileSync(trace, 'utf8').split('\n'));
    for (const want of ['/src/server/', '/node_modules/ajv/', '/node_modules/pino/', '/node_modules/thread-stream/']) assert.ok(loaded.some((m) => m.includes(want)), `${want} in\n${loaded.join('\n')}`);
  });

  it('answers --help and usage errors as `edgeplane sidecar` does', () => {
    const help = spawnSync(process.execPath, [SIDECAR_ENTRY, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: edgeplane-sidecar \[options\]/);
    assert.match(help.stdout, /--connect-to <host:port>/);
    const bad = spawnSync(process.execPath, [SIDECAR_ENTRY, '--server', 'https://cp:6443', '--token-file', 't', '--connect-to', 'relay'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /option '--connect-to <host:port>' argument 'relay' is invalid/);
    const missing = spawnSync(process.execPath, [SIDECAR_ENTRY], { encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^edgeplane-sidecar: sidecar needs --server and --token-file/);
  });
});
