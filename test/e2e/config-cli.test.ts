import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EDGEPLANE_BIN, startServer, type ServerProcess } from './support/server-process.js';

describe('edgeplane config and token commands against a real server', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-cli-'));
  const home = join(root, 'home');
  let server: ServerProcess;
  const cli = (args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } => {
    const run = spawnSync(process.execPath, [EDGEPLANE_BIN, ...args], { encoding: 'utf8', env: { ...process.env, EDGEPLANE_HOME: home, ...env } });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  before(async () => {
    server = await startServer(home);
  });
  after(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('creates from YAML, lists as a table, gets as JSON and YAML, replaces and deletes', () => {
    const file = join(root, 'policer.yaml');
    writeFileSync(file, 'metadata:\n  name: edge-limit\n  labels: {tier: gold}\nspec:\n  committed_information_rate: 500\n  burst_size: 50\n');
    assert.deepEqual(cli(['config', 'create', 'policer', '-f', file]).stdout, 'policer "edge-limit" created\n');
    const table = cli(['config', 'list', 'policers', '-l', 'tier=gold']);
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /^NAME\s+NAMESPACE\s+LABELS\s+AGE\nedge-limit\s+default\s+tier=gold\s+\d+s\n$/);
    const json = JSON.parse(cli(['config', 'get', 'policer', 'edge-limit', '-o', 'json']).stdout) as { spec: Record<string, unknown>; resource_version: string };
    assert.equal(json.spec['committed_information_rate'], 500);
    assert.match(cli(['config', 'get', 'policer', 'edge-limit', '--response-format', 'GET_RSP_FORMAT_STATUS']).stdout, /^object: null\n/);
    writeFileSync(file, 'metadata:\n  name: edge-limit\nspec:\n  committed_information_rate: 900\n  burst_size: 50\n');
    assert.equal(cli(['config', 'replace', 'policer', '-f', file]).stdout, 'policer "edge-limit" replaced\n');
    assert.match(cli(['config', 'get', 'policer', 'edge-limit', '-o', 'yaml']).stdout, /committed_information_rate: 900/);
    assert.equal(cli(['config', 'delete', 'policer', 'edge-limit']).stdout, 'policer "edge-limit" deleted\n');
  });

  it('prints the server\'s error and exits 1', () => {
    const missing = cli(['config', 'get', 'policer', 'ghost']);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): policer ghost does not exist in namespace default\n');
    const file = join(root, 'bad.json');
    writeFileSync(file, JSON.stringify({ metadata: { name: 'bad' }, spec: { interface_group: 'NOPE' } }));
    const invalid = cli(['config', 'create', 'forwarding_class', '-f', file]);
    assert.equal(invalid.status, 1);
    assert.match(invalid.stderr, /^Error from server \(InvalidArgument\): spec.interface_group: must be one of/);
    assert.match(cli(['config', 'get', 'widget', 'x']).stderr, /unknown kind "widget"/);
  });

  it('issues, lists and revokes tokens; a revoked token is refused', () => {
    const token = cli(['token', 'create', 'reader', '--role', 'default=monitor', '--expiration-days', '3']).stdout.trim();
    assert.match(token, /^ep1\.[A-Za-z0-9_-]{43}$/);
    assert.match(cli(['config', 'list', 'policer'], { EDGEPLANE_TOKEN: token }).stdout, /No policer objects found in namespace default/);
    assert.match(cli(['token', 'list']).stdout, /reader\s+API_TOKEN\s+reader@acme\s+true/);
    const write = cli(['config', 'create', 'policer', '-f', '-'], { EDGEPLANE_TOKEN: token });
    assert.notEqual(write.status, 0);
    assert.equal(cli(['token', 'revoke', 'reader']).stdout, 'credential "reader" revoked\n');
    const refused = cli(['config', 'list', 'policer'], { EDGEPLANE_TOKEN: token });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Error from server \(Unauthorized\): credential reader has been revoked/);
  });

  it('every config and token subcommand has --help', () => {
    for (const args of [['config', '--help'], ['config', 'get', '--help'], ['config', 'list', '--help'], ['config', 'create', '--help'], ['config', 'replace', '--help'], ['config', 'delete', '--help'], ['token', '--help'], ['token', 'create', '--help'], ['token', 'list', '--help'], ['token', 'revoke', '--help']]) {
      const run = cli(args);
      assert.equal(run.status, 0, args.join(' '));
      assert.match(run.stdout, /^Usage: edgeplane /, args.join(' '));
    }
  });
});
