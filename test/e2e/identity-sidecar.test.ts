import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { readWorkloadIdentity, type WorkloadIdentity } from '../../src/identity/identity-extension.js';
import { type RunningSidecar, type SidecarStateName, startSidecar } from '../../src/sidecar/index.js';
import { registerTestSites } from '../../src/site-plane/testing/register-test-sites.js';
import { toolPath } from '../../src/testing/tools.js';
import { curl } from './support/curl.js';
import type { Pod } from './support/multisite-objects.js';
import { EDGEPLANE_BIN, type ServerProcess, startServer } from './support/server-process.js';
import { waitFor } from './support/wait-for.js';
import { type ApiCall, apiCaller, deployWebWorkload, sitePodToken, startWorkloadIdentityEnv, type WorkloadIdentityEnv, type WorkloadPod } from './support/workload-identity-env.js';

const PEM = 'application/x-pem-file';
const TEXT = 'text/plain; charset=utf-8';
const IDENTITY_FILES = ['client.crt', 'client.key', 'client_ca.crt', 'server.crt', 'server.key', 'server_ca.crt'];
const EXTENSION_OID = '2.25.161571048551945514341099025207701910899';

/** The PEM certificates in `text`, in order, each ending with one newline. */
const certificatesIn = (text: string): string[] => (text.match(/-----BEGIN CERTIFICATE-----\n[\s\S]+?\n-----END CERTIFICATE-----\n?/g) ?? []).map((b) => b.trimEnd() + '\n');

/** Runs a command; resolves to its exit code and output whatever the code. */
function run(command: string, args: readonly string[]): Promise<{ exit: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') return reject(new Error(error.message));
      resolve({ exit: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

/** A loopback TCP port nothing listens on (bound, then released). */
async function unusedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The body of a 200 answer from a sidecar, through curl. */
async function curlBody(url: string): Promise<string> {
  const answer = await curl([url]);
  assert.equal(answer.status, 200, `${url}: exit ${answer.exit}, HTTP ${answer.status}: ${answer.body}${answer.stderr}`);
  return answer.body;
}

const serialOf = (pem: string): string => new X509Certificate(pem).serialNumber;

/**
 * The sidecar against the real control plane, checked with standard tools (curl, openssl,
 * a node https server): tenant acme runs Deployment `web` with a pod on each of the regional
 * edges re-a and re-b, tenant globex the same objects; each pod's sidecar bootstraps with the
 * token its site got for it through the site API.
 */
describe('the sidecar against the control plane, through curl and openssl', () => {
  let env: WorkloadIdentityEnv;
  let podA: WorkloadPod;
  let podB: WorkloadPod;
  let sidecarA: RunningSidecar;
  let sidecarB: RunningSidecar;
  let sidecarGlobex: RunningSidecar;
  const file = (sidecar: RunningSidecar, name: string): string => join(sidecar.identityDir, name);
  const read = (sidecar: RunningSidecar, name: string): string => readFileSync(file(sidecar, name), 'utf8');

  before(async () => {
    env = await startWorkloadIdentityEnv();
    [podA, podB] = env.acme as [WorkloadPod, WorkloadPod];
    [sidecarA, sidecarB, sidecarGlobex] = await Promise.all([env.sidecar(podA), env.sidecar(podB), env.sidecar(env.globex)]);
    await Promise.all([sidecarA.whenReady(), sidecarB.whenReady(), sidecarGlobex.whenReady()]);
  });
  after(async () => {
    await env?.close();
  });

  it('the identity folder holds six files, keys 0600 and certificates 0644, chains leaf first, each key matching its leaf', () => {
    assert.deepEqual(readdirSync(sidecarA.identityDir).sort(), IDENTITY_FILES, 'exactly the six files (no temporary file left)');
    const modes = Object.fromEntries(IDENTITY_FILES.map((name) => [name, (statSync(file(sidecarA, name)).mode & 0o777).toString(8)]));
    assert.deepEqual(modes, { 'client.crt': '644', 'client.key': '600', 'client_ca.crt': '644', 'server.crt': '644', 'server.key': '600', 'server_ca.crt': '644' });

    const anchor = new X509Certificate(read(sidecarA, 'server_ca.crt'));
    assert.equal(anchor.subject, 'O=Edgeplane\nOU=acme\nCN=acme workload identity CA');
    assert.equal(anchor.issuer, anchor.subject, 'the bundle is the tenant\'s self-signed trust anchor');
    assert.equal(read(sidecarA, 'client_ca.crt'), read(sidecarA, 'server_ca.crt'));
    for (const role of ['server', 'client']) {
      const chain = certificatesIn(read(sidecarA, `${role}.crt`));
      assert.equal(chain.length, 2, `${role}.crt is the leaf and the intermediate`);
      const [leaf, intermediate] = chain.map((pem) => new X509Certificate(pem)) as [X509Certificate, X509Certificate];
      assert.equal(leaf.subject, `L=re-a\nO=acme\nOU=default\nCN=${podA.pod.metadata.name ?? ''}`, `${role}.crt starts with the pod's leaf`);
      assert.equal(leaf.ca, false);
      assert.equal(intermediate.subject, anchor.subject);
      assert.equal(intermediate.issuer, 'O=Edgeplane\nCN=Edgeplane workload identity root CA', 'then the intermediate, signed by the platform root');
      assert.ok(leaf.checkIssued(intermediate) && leaf.verify(intermediate.publicKey), 'the leaf is signed by the intermediate');
      assert.ok(leaf.checkPrivateKey(createPrivateKey(read(sidecarA, `${role}.key`))), `${role}.key is the leaf's key`);
    }
  });

  it('openssl x509 -text shows the SPIFFE URI, the pod and Service DNS names, and the workload identity with labels, tenant and site', async () => {
    const name = podA.pod.metadata.name ?? '';
    for (const [role, usage] of [['server', 'TLS Web Server Authentication'], ['client', 'TLS Web Client Authentication']] as const) {
      const { exit, stdout: text, stderr } = await run(toolPath('openssl'), ['x509', '-noout', '-text', '-in', file(sidecarA, `${role}.crt`)]);
      assert.equal(exit, 0, stderr);
      const san = /X509v3 Subject Alternative Name:\s*\n\s*(.+)\n/.exec(text)?.[1];
      assert.deepEqual(san?.split(', ').sort(), [
        `DNS:${name}.default`,
        `DNS:${name}.default.re-a`,
        'DNS:web',
        'DNS:web.default',
        'DNS:web.default.svc',
        'DNS:web.default.svc.cluster.local',
        'URI:spiffe://acme/ns/default/sa/shop',
      ].sort());
      // The value prints after the DER UTF8String's tag and length bytes (shown as dots).
      const json = new RegExp(`${EXTENSION_OID.replaceAll('.', '\\.')}: *\\n *[^\\n]*?(\\{"labels".*\\})\\n`).exec(text)?.[1];
      assert.ok(json !== undefined, `openssl shows the workload identity extension as text:\n${text}`);
      assert.deepEqual(JSON.parse(json), {
        labels: podA.pod.metadata.labels,
        namespace: 'default',
        pod: name,
        podUid: podA.pod.metadata.uid,
        serviceAccount: 'shop',
        site: 're-a',
        tenant: 'acme',
        v: 1,
        vk8s: 'vk1',
      });
      assert.equal((JSON.parse(json) as { labels: Record<string, string> }).labels['app'], 'web');
      assert.match(text, new RegExp(`X509v3 Extended Key Usage: *\\n *${usage}\\n`));
    }
  });

  it('openssl verify accepts client.crt against client_ca.crt and server.crt against server_ca.crt, and not another tenant\'s', async () => {
    const client = await run(toolPath('openssl'), ['verify', '-purpose', 'sslclient', '-CAfile', file(sidecarA, 'client_ca.crt'), file(sidecarA, 'client.crt')]);
    assert.deepEqual([client.exit, client.stdout], [0, `${file(sidecarA, 'client.crt')}: OK\n`], client.stderr);
    const server = await run(toolPath('openssl'), ['verify', '-purpose', 'sslserver', '-CAfile', file(sidecarA, 'server_ca.crt'), file(sidecarA, 'server.crt')]);
    assert.deepEqual([server.exit, server.stdout], [0, `${file(sidecarA, 'server.crt')}: OK\n`], server.stderr);
    const foreign = await run(toolPath('openssl'), ['verify', '-CAfile', file(sidecarA, 'client_ca.crt'), file(sidecarGlobex, 'client.crt')]);
    assert.notEqual(foreign.exit, 0);
    assert.match(foreign.stdout + foreign.stderr, /unable to get local issuer certificate/);
  });

  it('every sidecar endpoint answers curl: /status, the three forms of both credentials, both bundles, 404 naming the valid bundles, 405 with Allow', async () => {
    const base = sidecarA.urls[0] ?? '';
    const status = await curl([`${base}/status`]);
    assert.deepEqual([status.exit, status.status, status.headers['content-type'], status.body], [0, 200, TEXT, 'READY']);

    for (const role of ['server', 'client']) {
      const chain = read(sidecarA, `${role}.crt`);
      const expected = { key: read(sidecarA, `${role}.key`), cert: chain, 'cert-only': certificatesIn(chain)[0] };
      for (const [form, body] of Object.entries(expected)) {
        const answer = await curl([`${base}/creds/pki/${role}/${form}`]);
        assert.deepEqual([answer.status, answer.headers['content-type'], answer.headers['cache-control']], [200, PEM, 'no-store'], `${role}/${form}: ${answer.body}`);
        assert.equal(answer.body, body, `/creds/pki/${role}/${form} serves what ${role}.${form === 'key' ? 'key' : 'crt'} holds`);
      }
      const leaf = new X509Certificate(await curlBody(`${base}/creds/pki/${role}/cert-only`));
      assert.ok(leaf.checkPrivateKey(createPrivateKey(await curlBody(`${base}/creds/pki/${role}/key`))), `the ${role} key served belongs to the ${role} leaf served`);
      assert.equal(certificatesIn(await curlBody(`${base}/creds/pki/${role}/cert`)).length, 2, 'cert = leaf + intermediate');
    }
    for (const bundle of ['server_ca', 'client_ca']) {
      const answer = await curl([`${base}/trust/pki/${bundle}`]);
      assert.deepEqual([answer.status, answer.headers['content-type'], answer.body], [200, PEM, read(sidecarA, `${bundle}.crt`)]);
    }

    const unknown = await curl([`${base}/trust/pki/root_ca`]);
    assert.deepEqual([unknown.status, unknown.headers['content-type'], unknown.body], [404, TEXT, 'unknown CA bundle "root_ca": valid names are server_ca, client_ca\n']);
    const unknownRole = await curl([`${base}/creds/pki/peer/key`]);
    assert.deepEqual([unknownRole.status, unknownRole.body], [404, 'unknown credential "peer": valid names are server, client\n']);

    for (const [method, path] of [['POST', '/status'], ['DELETE', '/creds/pki/server/key'], ['PUT', '/trust/pki/server_ca']]) {
      const answer = await curl(['-X', method ?? '', `${base}${path ?? ''}`]);
      assert.deepEqual([answer.status, answer.headers['allow'], answer.body], [405, 'GET, HEAD', `method ${method ?? ''} is not allowed on ${path ?? ''}: allowed GET, HEAD\n`]);
    }
  });

  it('mutual TLS with the files: pod A\'s https server accepts curl from pod B of the same tenant on another site by A\'s DNS names, and refuses globex\'s pod', async () => {
    // Pod A (re-a) serves with its server.crt/server.key and trusts client_ca.crt, requiring a client certificate.
    const seen: Array<WorkloadIdentity | undefined> = [];
    const tlsErrors: string[] = [];
    const server: HttpsServer = createHttpsServer(
      { cert: read(sidecarA, 'server.crt'), key: read(sidecarA, 'server.key'), ca: read(sidecarA, 'client_ca.crt'), requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = readWorkloadIdentity((req.socket as TLSSocket).getPeerCertificate().raw);
        seen.push(peer);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(peer));
      },
    );
    server.on('tlsClientError', (_error, socket) => tlsErrors.push(String(socket.authorizationError)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const from = (sidecar: RunningSidecar, trust: RunningSidecar, host: string): Promise<Awaited<ReturnType<typeof curl>>> =>
        curl(['--cert', file(sidecar, 'client.crt'), '--key', file(sidecar, 'client.key'), '--cacert', file(trust, 'server_ca.crt'), '--resolve', `${host}:${port}:127.0.0.1`, `https://${host}:${port}/`]);
      const podName = `${podA.pod.metadata.name ?? ''}.default.re-a`;

      for (const host of [podName, 'web.default.svc']) {
        const answer = await from(sidecarB, sidecarB, host);
        assert.deepEqual([answer.exit, answer.status], [0, 200], `pod B → ${host}: ${answer.stderr}`);
        const identity = JSON.parse(answer.body) as WorkloadIdentity;
        assert.deepEqual([identity.tenant, identity.site, identity.pod, identity.podUid], ['acme', 're-b', podB.pod.metadata.name, podB.pod.metadata.uid], 'the server sees pod B\'s identity');
      }
      assert.equal(seen.length, 2);

      const wrongName = await from(sidecarB, sidecarB, 'other.default.re-a');
      assert.equal(wrongName.exit, 60, `a name not in A's certificate fails verification: ${wrongName.stderr}`);
      assert.match(wrongName.stderr, /no alternative certificate subject name matches/);
      const globexTrust = await from(sidecarB, sidecarGlobex, podName);
      assert.equal(globexTrust.exit, 60, `globex's server_ca.crt does not trust acme's server: ${globexTrust.stderr}`);

      const errorsBefore = tlsErrors.length;
      const globex = await from(sidecarGlobex, sidecarB, podName);
      // Node's TLS server checks the client's chain against client_ca.crt once the handshake is
      // done and, with rejectUnauthorized, destroys the socket without an alert: depending on
      // timing curl sees the handshake fail (35), no answer (52) or a reset (56).
      assert.ok([35, 52, 56].includes(globex.exit), `globex's client certificate is refused over TLS (exit ${globex.exit}): ${globex.stderr}`);
      assert.equal(globex.status, 0, 'no HTTP answer');
      const reason = await waitFor('the server to report the refused client certificate', () => Promise.resolve(tlsErrors[errorsBefore]), { timeoutMs: 5000 });
      assert.equal(reason, 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'refused because client_ca.crt does not hold its issuer');
      assert.equal(seen.length, 2, 'the refused request never reached the handler');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a sidecar whose control plane is unreachable stays INITIALIZING and answers credentials 503 naming its state', async () => {
    const sidecar = await startSidecar({
      server: `https://127.0.0.1:${await unusedPort()}`,
      tokenFile: await env.tokenFile(podA),
      identityDir: join(env.tempDir('identity'), 'identity'),
      listen: ['127.0.0.1:0'],
      policy: { backoffBaseMs: 50, backoffMaxMs: 200 },
    });
    try {
      const detail = await waitFor('two failed bootstrap attempts', () => {
        const state = sidecar.detail();
        return Promise.resolve(state.kind === 'INITIALIZING' && state.failures >= 2 ? state : undefined);
      });
      assert.match(String(detail.lastError), /ECONNREFUSED/);
      const base = sidecar.urls[0] ?? '';
      const status = await curl([`${base}/status`]);
      assert.deepEqual([status.status, status.headers['content-type'], status.body], [200, TEXT, 'INITIALIZING']);
      const notReady = 'edgeplane sidecar is still not ready, current status => INITIALIZING, please retry after some time\n';
      for (const path of ['/creds/pki/server/key', '/creds/pki/client/cert', '/trust/pki/client_ca']) {
        const answer = await curl([`${base}${path}`]);
        assert.deepEqual([answer.status, answer.headers['content-type'], answer.body], [503, TEXT, notReady], path);
      }
      assert.equal(existsSync(sidecar.identityDir), false, 'no identity files without an identity');
    } finally {
      await sidecar.stop();
    }
  });

  it('a sidecar that never reaches its control plane is HALTED after its retry budget: /status 200 HALTED, credentials 503', async () => {
    const started = Date.now();
    const sidecar = await startSidecar({
      server: `https://127.0.0.1:${await unusedPort()}`,
      tokenFile: await env.tokenFile(podA),
      identityDir: join(env.tempDir('identity'), 'identity'),
      listen: ['127.0.0.1:0'],
      policy: { retryBudgetMs: 1000, backoffBaseMs: 100, backoffMaxMs: 200 },
    });
    try {
      await assert.rejects(sidecar.whenReady(), /the sidecar halted \(RETRY_BUDGET_EXHAUSTED\): .*ECONNREFUSED/);
      assert.ok(Date.now() - started >= 1000, 'not before the budget ran out');
      assert.equal(sidecar.state(), 'HALTED');
      const base = sidecar.urls[0] ?? '';
      const status = await curl([`${base}/status`]);
      assert.deepEqual([status.status, status.headers['content-type'], status.body], [200, TEXT, 'HALTED']);
      const creds = await curl([`${base}/creds/pki/server/cert`]);
      assert.deepEqual([creds.status, creds.body], [503, 'edgeplane sidecar is still not ready, current status => HALTED, please retry after some time\n']);
      const trust = await curl([`${base}/trust/pki/server_ca`]);
      assert.equal(trust.status, 503);
    } finally {
      await sidecar.stop();
    }
  });
});

/** `edgeplane sidecar` as a child process: its loopback URL from the "sidecar listening" log line. */
interface SidecarProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

async function startSidecarProcess(args: readonly string[]): Promise<SidecarProcess> {
  const child = spawn(process.execPath, [EDGEPLANE_BIN, 'sidecar', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`edgeplane sidecar did not listen within 20 s: ${output}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"msg":"sidecar listening"'));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { urls: string[] }).urls[0] ?? '');
      }
    });
    void exited.then((code) => reject(new Error(`edgeplane sidecar exited with ${code} before listening: ${output}`)));
  });
  return {
    url,
    child,
    output: () => output,
    stop: (signal) => {
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * The sidecar against `edgeplane server` processes on SQLite with one-minute certificates:
 * the real `edgeplane sidecar` command with a token from `edgeplane identity token`, and a
 * sidecar living through its control plane's stop and restart (same home, same port).
 */
describe('the sidecar against an edgeplane server process', () => {
  const SERVER_ARGS = ['--identity-certificate-lifetime', '1m'];
  let home: string;
  let dirs: string;
  let server: ServerProcess | undefined;
  let call: ApiCall;
  let adminToken: string;
  let pod: WorkloadPod;
  const children: SidecarProcess[] = [];

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'edgeplane-sidecar-server-'));
    dirs = mkdtempSync(join(tmpdir(), 'edgeplane-sidecar-dirs-'));
    server = await startServer(home, SERVER_ARGS);
    adminToken = readFileSync(join(home, 'api-token'), 'utf8').trim();
    call = apiCaller(server.url, readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), adminToken);
    const agent = await registerTestSites(call, { tenant: adminToken, platform: readFileSync(join(home, 'platform-api-token'), 'utf8').trim() }, 'agent-a', [
      { name: 're-a', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'eu' } },
    ]);
    const [bound] = (await deployWebWorkload(call, adminToken, 1)) as [Pod];
    pod = { tenant: 'acme', pod: bound, site: 're-a', agent };
  });
  after(async () => {
    for (const child of children) if (child.child.exitCode === null) await child.stop('SIGKILL');
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(dirs, { recursive: true, force: true });
  });

  it('edgeplane sidecar, given a token minted by `edgeplane identity token`, is READY through curl and exits 0 on SIGTERM', async () => {
    const url = server?.url ?? '';
    const minted = await run(process.execPath, [EDGEPLANE_BIN, 'identity', 'token', '--server', url, '--token', adminToken, '--ca-file', join(home, 'pki', 'ca.crt'), '--namespace', 'default', '--vk8s', 'vk1', '--pod', pod.pod.metadata.name ?? '']);
    assert.equal(minted.exit, 0, minted.stderr);
    const tokenFile = join(dirs, 'cli-token');
    writeFileSync(tokenFile, minted.stdout, { mode: 0o600 });
    const identityDir = join(dirs, 'cli-identity');
    // No --ca-file: the sidecar trusts the control plane through the token's ca_pin.
    const sidecar = await startSidecarProcess(['--server', url, '--token-file', tokenFile, '--identity-dir', identityDir, '--listen', '127.0.0.1:0']);
    children.push(sidecar);
    await waitFor('edgeplane sidecar to answer READY', async () => ((await curl([`${sidecar.url}/status`])).body === 'READY' ? true : undefined), { describe: () => sidecar.output() });

    const leaf = new X509Certificate(await curlBody(`${sidecar.url}/creds/pki/client/cert-only`));
    const identity = readWorkloadIdentity(leaf.raw);
    assert.deepEqual([identity?.tenant, identity?.site, identity?.pod, identity?.podUid], ['acme', 're-a', pod.pod.metadata.name, pod.pod.metadata.uid]);
    assert.ok(leaf.checkPrivateKey(createPrivateKey(readFileSync(join(identityDir, 'client.key'), 'utf8'))), 'the served leaf is the one whose key is in the folder');
    assert.equal(Date.parse(leaf.validTo) - Date.parse(leaf.validFrom), 6 * 60_000, 'one-minute lifetime (notBefore backdated 5 minutes)');

    assert.equal(await sidecar.stop('SIGTERM'), 0);
    assert.match(sidecar.output(), /"msg":"sidecar READY"/);
    assert.match(sidecar.output(), /"msg":"sidecar stopped"/);
    assert.deepEqual(readdirSync(identityDir).sort(), IDENTITY_FILES, 'the files stay after it stops');
  });

  it('with the identity service stopped the sidecar goes DEGRADED before expiry, serving its current certificates, and READY with new ones once it is back', async () => {
    const port = new URL(server?.url ?? '').port;
    const tokenFile = join(dirs, 'site-token');
    writeFileSync(tokenFile, (await sitePodToken(call, pod)).token, { mode: 0o600 });
    // Renew at 5 % (±1 %) of the minute, DEGRADED possible in the last 90 %: a failed renewal
    // about 3 s in makes it DEGRADED about 6 s in, long before expiry.
    const sidecar = await startSidecar({
      server: server?.url ?? '',
      tokenFile,
      identityDir: join(dirs, 'identity'),
      listen: ['127.0.0.1:0'],
      policy: { lifetimeFraction: 0.05, renewalJitter: 0.01, expiryWindowFraction: 0.9, backoffBaseMs: 200, backoffMaxMs: 1000 },
    });
    const states: SidecarStateName[] = [];
    sidecar.onStateChange((state, previous) => state.kind !== previous.kind && states.push(state.kind));
    const base = sidecar.urls[0] ?? '';
    const servedSerial = async (): Promise<string> => serialOf(await curlBody(`${base}/creds/pki/server/cert-only`));
    try {
      await sidecar.whenReady();
      assert.equal(await server?.stop('SIGTERM'), 0);
      server = undefined;

      await waitFor('the sidecar to go DEGRADED', () => Promise.resolve(sidecar.state() === 'DEGRADED' ? true : undefined), { timeoutMs: 30_000, describe: () => JSON.stringify(sidecar.detail()) });
      const degraded = await curl([`${base}/status`]);
      assert.deepEqual([degraded.status, degraded.body], [200, 'DEGRADED']);
      const current = await servedSerial();
      const leaf = new X509Certificate(await curlBody(`${base}/creds/pki/server/cert-only`));
      assert.ok(Date.parse(leaf.validTo) > Date.now(), 'DEGRADED while the certificates are still valid');
      assert.equal(serialOf(readFileSync(join(sidecar.identityDir, 'server.crt'), 'utf8')), current, 'the files hold the served certificate');
      assert.match(String(sidecar.detail().lastError), /^POST https:\/\/127\.0\.0\.1:\d+\/api\/identity\/v1\/certificates\/renew (failed|answered)/, 'a failed renewal');

      server = await startServer(home, [...SERVER_ARGS, '--listen', `127.0.0.1:${port}`]);
      await waitFor('the sidecar to be READY again', () => Promise.resolve(sidecar.state() === 'READY' ? true : undefined), { timeoutMs: 30_000, describe: () => JSON.stringify(sidecar.detail()) });
      assert.equal((await curl([`${base}/status`])).body, 'READY');
      // Renewals come every few seconds now: read until the served and written certificates agree.
      const renewed = await waitFor('the served certificate and server.crt to agree', async () => {
        const written = serialOf(readFileSync(join(sidecar.identityDir, 'server.crt'), 'utf8'));
        return (await servedSerial()) === written ? written : undefined;
      });
      assert.notEqual(renewed, current, 'a new certificate from the restarted service');
      const identity = readWorkloadIdentity(new X509Certificate(await curlBody(`${base}/creds/pki/client/cert-only`)).raw);
      assert.equal(identity?.podUid, pod.pod.metadata.uid);
      assert.deepEqual(states.slice(-2), ['DEGRADED', 'READY']);
      assert.ok(!states.includes('HALTED'), `never HALTED: ${states.join(' → ')}`);
    } finally {
      await sidecar.stop();
    }
  });
});
