import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Attach, Exec, KubeConfig, Log, PortForward, type V1Status } from '@kubernetes/client-node';
import { createServer, type AddressInfo } from 'node:net';
import { request } from 'node:http';
import { kubectl120, kubectlNewest, runKubectl, spawnKubectl } from '../../src/vk8s/testing/kubectl.js';
import { runKubectlWithInput, startKubectlPortForward } from '../../src/vk8s/streams/testing/kubectl-processes.js';
import { SIDECAR_PORT } from '../../src/api/sidecar-injection.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';
import { spawnInTerminal } from './support/terminal.js';

/**
 * kubectl (1.20 over SPDY/3.1, the newest over WebSocket) and client-node 1.4.0 reach real
 * containers on a runc site through the vK8s API and the site's tunnel (docs/TUNNEL.md).
 */

const SITE = 'ce-streams';

/** Polls `probe` (sync or async) until it returns something. */
const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => waitFor(what, async () => probe(), { timeoutMs });

/** An HTTP server in the pod: answers with its pod name and the path; listens on 127.0.0.1 too, like a sidecar-only service. */
const WEB = "require('http').createServer((q,s)=>s.end(process.env.HOSTNAME+' '+q.url)).listen(8080)";

function deployment(name: string, command: readonly string[], extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: host
        command: ${JSON.stringify(command)}
${extra}`;
}

describe('kubectl and client-node streams to real pods on a runc site, through the tunnel', () => {
  let env: RuncSiteEnv;
  const pods: Record<string, string> = {};
  const kubeconfig = (): string => join(env.dir, 'kubeconfig');
  const cli = (binary: string) => ({ kubeconfig: kubeconfig(), cacheDir: join(env.dir, `cache-${binary === kubectl120() ? '120' : 'new'}`) });
  const both = (): Array<[string, string]> => [
    ['1.20 (SPDY)', kubectl120()],
    ['newest (WebSocket)', kubectlNewest()],
  ];

  before(async () => {
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }]);
    const talker = ['sh', '-c', 'i=0; while true; do echo "line $i"; i=$((i+1)); sleep 0.1; done'];
    const data = '        volumeMounts: [{name: data, mountPath: /data}]\n      volumes: [{name: data, emptyDir: {}}]\n';
    const crasher = ['sh', '-c', 'echo "instance $(cat /proc/sys/kernel/random/uuid)"; sleep 1; exit 3'];
    await env.ok(['apply', '-f', '-'], [deployment('talker', talker, data), deployment('web', ['node', '-e', WEB]), deployment('crasher', crasher)].join('---\n'));
    for (const app of ['talker', 'web', 'crasher']) {
      pods[app] = await until(`a pod of ${app} runs`, async () => {
        const out = await env.kubectl(['get', 'pods', '-l', `app=${app}`, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.phase}{"\\n"}{end}']);
        const line = out.stdout.split('\n').find((l) => l.endsWith(' Running'));
        return line?.split(' ')[0];
      }, 60_000);
    }
    await until('web answers inside its pod', async () => ((await env.kubectl(['exec', pods['web'] ?? '', '--', 'node', '-e', "require('http').get('http://127.0.0.1:8080/',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"])).status === 0 ? true : undefined), 30_000);
  });

  after(async () => {
    if (env === undefined) return;
    await env.ok(['delete', 'deployment', '--all', '--wait=false']);
    await until('pods gone', async () => ((await env.kubectl(['get', 'pods', '-o', 'name'])).stdout.trim() === '' ? true : undefined), 60_000).catch(() => undefined);
    const left = podLeftovers(env, SITE);
    await env.close();
    assert.deepEqual(left, []);
  });

  it('logs: -c, --tail, --timestamps, --limit-bytes, --since, --all-containers with both kubectls', async () => {
    for (const [version, binary] of both()) {
      const tail = await runKubectl(binary, ['logs', pods['talker'] ?? '', '-c', 'main', '--tail=3'], cli(binary));
      assert.equal(tail.status, 0, `${version}: ${tail.stderr}`);
      assert.match(tail.stdout, /^line \d+\nline \d+\nline \d+\n$/, version);
      // kubectl 1.20 wants -c for a pod of two containers (its own check); newer ones take the pod's default-container annotation.
      const container = binary === kubectl120() ? ['-c', 'main'] : [];
      const stamped = await runKubectl(binary, ['logs', pods['talker'] ?? '', ...container, '--tail=1', '--timestamps'], cli(binary));
      assert.match(stamped.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z line \d+\n$/, `${version}: ${stamped.stderr}`);
      const limited = await runKubectl(binary, ['logs', pods['talker'] ?? '', ...container, '--limit-bytes=5'], cli(binary));
      assert.equal(limited.stdout, 'line ', version);
      const recent = await runKubectl(binary, ['logs', pods['talker'] ?? '', ...container, '--since=1s'], cli(binary));
      const count = recent.stdout.split('\n').filter((l) => l !== '').length;
      assert.ok(count >= 3 && count <= 20, `${version}: ${count} lines in the last second`);
    }
    // Without a container the API itself takes the annotated one (for clients that do not read it).
    const plain = await env.h.call('GET', `/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/pods/${pods['talker'] ?? ''}/log?tailLines=1`);
    assert.equal(plain.status, 200, plain.body);
    assert.match(plain.body, /^line \d+\n$/);
    // The sidecar is a container of the pod too: --all-containers shows both.
    const all = await env.kubectl(['logs', pods['talker'] ?? '', '--all-containers', '--tail=1']);
    assert.equal(all.status, 0, all.stderr);
    assert.equal(all.stdout.split('\n').filter((l) => l !== '').length, 2, all.stdout);
  });

  it('logs -f follows while the container writes, with both kubectls and a label selector', async () => {
    for (const [version, binary] of both()) {
      const child = spawnKubectl(binary, ['logs', '-f', '-l', 'app=talker', '-c', 'main'], cli(binary));
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const first = await until(`${version}: a first line`, () => /line (\d+)/.exec(text)?.[1], 15_000);
      await until(`${version}: a line written after the first`, () => (text.includes(`line ${Number(first) + 5}\n`) ? true : undefined), 15_000);
      child.kill('SIGTERM');
    }
  });

  it('logs --previous shows the crashed instance; client-node Log follows', async () => {
    await until('crasher restarted', async () => {
      const out = await env.kubectl(['get', 'pod', pods['crasher'] ?? '', '-o', 'jsonpath={.status.containerStatuses[?(@.name=="main")].restartCount}']);
      return Number(out.stdout) >= 1 ? true : undefined;
    }, 60_000);
    const previous = await env.kubectl(['logs', pods['crasher'] ?? '', '-c', 'main', '--previous']);
    assert.equal(previous.status, 0, previous.stderr);
    assert.match(previous.stdout, /^instance [0-9a-f-]{36}\n$/);
    const none = await env.kubectl(['logs', pods['talker'] ?? '', '-c', 'main', '--previous']);
    assert.notEqual(none.status, 0);
    assert.match(none.stderr, /previous terminated container "main" in pod/);

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig());
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const controller = await new Log(kc).log('default', pods['talker'] ?? '', 'main', out, { follow: true, tailLines: 1 });
    const first = await until('client-node Log: a line', () => /line (\d+)/.exec(text)?.[1]);
    await until('client-node Log: later lines', () => (text.includes(`line ${Number(first) + 3}\n`) ? true : undefined));
    controller.abort();
  });

  it('exec: output, stdin, exit codes passed through, with both kubectls and client-node', async () => {
    for (const [version, binary] of both()) {
      const echo = await runKubectl(binary, ['exec', pods['talker'] ?? '', '-c', 'main', '--', 'sh', '-c', 'echo out; echo err >&2'], cli(binary));
      assert.deepEqual([echo.status, echo.stdout, echo.stderr], [0, 'out\n', 'err\n'], version);
      const three = await runKubectl(binary, ['exec', pods['talker'] ?? '', '-c', 'main', '--', 'sh', '-c', 'exit 3'], cli(binary));
      assert.equal(three.status, 3, `${version}: ${three.stderr}`);
      const payload = randomBytes(256 * 1024);
      const cat = await runKubectlWithInput(binary, ['exec', '-i', pods['talker'] ?? '', '-c', 'main', '--', 'cat'], payload, cli(binary));
      assert.equal(cat.status, 0, `${version}: ${cat.stderr}`);
      assert.ok(cat.output.equals(payload), `${version}: stdin came back changed (${cat.output.length} bytes)`);
    }
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig());
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const status = await new Promise<V1Status>((resolve, reject) => {
      new Exec(kc).exec('default', pods['talker'] ?? '', 'main', ['sh', '-c', 'echo hello; exit 4'], stdout, null, null, false, resolve).catch(reject);
    });
    assert.equal(text, 'hello\n');
    assert.equal(status.status, 'Failure');
    assert.equal(status.reason, 'NonZeroExitCode');
  });

  it('exec -it: a shell on a terminal, resized, its exit code passed through', async () => {
    for (const [version, binary] of both()) {
      const term = spawnInTerminal(binary, [`--kubeconfig=${kubeconfig()}`, `--cache-dir=${cli(binary).cacheDir}`, 'exec', '-it', pods['talker'] ?? '', '-c', 'main', '--', 'sh'], { cols: 80, rows: 24, home: cli(binary).cacheDir });
      await until(`${version}: a prompt`, () => (/[#$] $/.test(term.output()) ? true : undefined), 20_000);
      term.write('tty; stty size\r');
      await until(`${version}: a terminal of 24x80`, () => (/\/dev\/pts\/\d+\r?\n24 80/.test(term.output()) ? true : undefined), 10_000);
      term.resize(132, 50);
      await new Promise((resolve) => setTimeout(resolve, 300));
      term.write('stty size\r');
      await until(`${version}: resized to 50x132`, () => (/50 132/.test(term.output()) ? true : undefined), 10_000);
      term.write('exit 5\r');
      assert.equal(await term.exited, 5, `${version}: ${term.output()}`);
    }
  });

  it('attach: the running container\'s output, with kubectl and client-node', async () => {
    for (const [version, binary] of both()) {
      const child = spawnKubectl(binary, ['attach', pods['talker'] ?? '', '-c', 'main'], cli(binary));
      let text = '';
      let errors = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      await until(`${version}: kubectl attach shows two fresh lines`, () => ((text.match(/line \d+\n/g) ?? []).length >= 2 ? true : undefined), 15_000).catch((error: Error) => {
        throw new Error(`${error.message}; stdout ${JSON.stringify(text.slice(-200))}, stderr ${JSON.stringify(errors.slice(-400))}`);
      });
      child.kill('SIGTERM');
    }

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig());
    const out = new PassThrough();
    let attached = '';
    out.on('data', (chunk: Buffer) => (attached += chunk.toString()));
    const socket = await new Attach(kc).attach('default', pods['talker'] ?? '', 'main', out, null, null, false);
    await until('client-node Attach: a line', () => (/line \d+\n/.test(attached) ? true : undefined), 15_000);
    socket.close();
  });

  it('cp: a file in and out, byte for byte, with both kubectls', async () => {
    const payload = randomBytes(3 * 1024 * 1024 + 7);
    const source = join(env.dir, 'cp-source.bin');
    writeFileSync(source, payload);
    for (const [version, binary] of both()) {
      const into = await runKubectl(binary, ['cp', source, `${pods['talker'] ?? ''}:/data/copied.bin`, '-c', 'main'], cli(binary));
      assert.equal(into.status, 0, `${version}: ${into.stderr}`);
      const target = join(env.dir, `cp-back-${version.split(' ')[0] ?? ''}.bin`);
      const back = await runKubectl(binary, ['cp', `${pods['talker'] ?? ''}:/data/copied.bin`, target, '-c', 'main'], cli(binary));
      assert.equal(back.status, 0, `${version}: ${back.stderr}`);
      assert.ok(readFileSync(target).equals(payload), `${version}: the copy differs`);
    }
  });

  it('port-forward: 50 concurrent requests through each kubectl, several ports, a refused port alone failing', async () => {
    for (const [version, binary] of both()) {
      const forward = await startKubectlPortForward(binary, pods['web'] ?? '', 8080, cli(binary));
      try {
        const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => get(forward.port, `/r${i}`)));
        answers.forEach((answer, i) => assert.equal(answer, `${pods['web'] ?? ''} /r${i}`, version));
      } finally {
        await forward.stop();
      }
    }
    // Two ports on one kubectl: 8080 answers, 9 is refused inside the pod — only its connection fails.
    const refusedPort = await freePort();
    const servedPort = await freePort();
    const child = spawnKubectl(kubectl120(), ['port-forward', pods['web'] ?? '', `${servedPort}:8080`, `${refusedPort}:9`], cli(kubectl120()));
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    try {
      await until('kubectl forwards both ports', () => (text.includes(`:${refusedPort} ->`) && text.includes(`:${servedPort} ->`) ? true : undefined), 20_000);
      await assert.rejects(get(refusedPort, '/'));
      assert.equal(await get(servedPort, '/still'), `${pods['web'] ?? ''} /still`);
      await until('kubectl reports the refused connection', () => (/connection refused|failed to connect/i.test(text) ? true : undefined), 10_000);
    } finally {
      child.kill('SIGTERM');
    }

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig());
    const local = createServer((socket) => void new PortForward(kc).portForward('default', pods['web'] ?? '', [8080], socket, null, socket));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    try {
      assert.equal(await get((local.address() as AddressInfo).port, '/client-node'), `${pods['web'] ?? ''} /client-node`);
    } finally {
      local.close();
    }
  });

  it(`port-forward to the sidecar's port ${SIDECAR_PORT} is refused as forbidden with both kubectls, nothing of the sidecar answering; a workload port still forwards`, async () => {
    for (const [version, binary] of both()) {
      const refused = await startKubectlPortForward(binary, pods['web'] ?? '', SIDECAR_PORT, cli(binary));
      try {
        await assert.rejects(get(refused.port, '/status'), `${version}: the sidecar answered through port-forward`);
        const forbidden = `pods "${pods['web'] ?? ''}" is forbidden: port-forward to port ${SIDECAR_PORT} is not allowed`;
        await until(`${version}: kubectl prints the refusal`, () => (refused.output().replace(/\\"/g, '"').includes(forbidden) ? true : undefined), 10_000).catch(() => {
          throw new Error(`${version}: kubectl printed ${refused.output()}`);
        });
      } finally {
        await refused.stop();
      }
      const workload = await startKubectlPortForward(binary, pods['web'] ?? '', 8080, cli(binary));
      try {
        assert.equal(await get(workload.port, '/after'), `${pods['web'] ?? ''} /after`, version);
      } finally {
        await workload.stop();
      }
    }
  });

  it('a site agent that goes away mid-stream ends the stream with an error; after it reconnects streams work', async () => {
    const child = spawnKubectl(kubectl120(), ['logs', '-f', pods['talker'] ?? '', '-c', 'main'], cli(kubectl120()));
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    await until('following', () => (/line \d+/.test(text) ? true : undefined), 15_000);
    await env.restartAgent(SITE);
    const status = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000))]);
    if (status === 'hung') child.kill('SIGKILL');
    assert.notEqual(status, 'hung', `kubectl logs -f hung after the agent went away: ${text.slice(-300)}`);
    await until('exec works through the new tunnel', async () => ((await env.kubectl(['exec', pods['talker'] ?? '', '-c', 'main', '--', 'true'])).status === 0 ? true : undefined), 30_000);
  });
});

function get(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.setTimeout(15_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
