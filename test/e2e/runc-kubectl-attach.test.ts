import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl120, kubectlNewest } from '../../src/vk8s/testing/kubectl.js';
import { runKubectlWithInput, spawnKubectl as spawnWithInput } from '../../src/vk8s/streams/testing/kubectl-processes.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { spawnInTerminal } from './support/terminal.js';
import { waitFor } from './support/wait-for.js';

/**
 * `kubectl attach -i` and `-it` to real containers on a runc site (stdin kept open by conmon,
 * input through its attach socket, a terminal resized through its control FIFO), with kubectl
 * 1.20 (SPDY/3.1) and the newest (WebSocket).
 */

const SITE = 'ce-attach';

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => waitFor(what, async () => probe(), { timeoutMs });

function deployment(name: string, command: readonly string[], stdio: string): string {
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
        ${stdio}
`;
}

describe('kubectl attach -i / -it to real pods on a runc site', () => {
  let env: RuncSiteEnv;
  const kubeconfig = (): string => join(env.dir, 'kubeconfig');
  const cli = (binary: string) => ({ kubeconfig: kubeconfig(), cacheDir: join(env.dir, `cache-${binary === kubectl120() ? '120' : 'new'}`) });
  const both = (): Array<[string, string]> => [
    ['1.20 (SPDY)', kubectl120()],
    ['newest (WebSocket)', kubectlNewest()],
  ];
  /** The running pod of an app whose main container has restarted `restarts` times at least. */
  const runningPod = (app: string, restarts = 0): Promise<string> =>
    until(`a pod of ${app} runs (${restarts} restarts)`, async () => {
      const out = await env.kubectl(['get', 'pods', '-l', `app=${app}`, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.containerStatuses[?(@.name=="main")].restartCount} {.status.containerStatuses[?(@.name=="main")].state.running.startedAt}{"\\n"}{end}']);
      const line = out.stdout.split('\n').find((l) => {
        const [, count, started] = l.split(' ');
        return Number(count) >= restarts && started !== undefined && started !== '';
      });
      return line?.split(' ')[0];
    }, 60_000);

  before(async () => {
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }]);
    await env.ok(['apply', '-f', '-'], [
      deployment('reader', ['sh', '-c', 'while read l; do echo "got:$l"; done; echo "stdin closed"'], 'stdin: true'),
      deployment('once', ['cat'], 'stdin: true\n        stdinOnce: true'),
      deployment('shell', ['sh'], 'stdin: true\n        tty: true'),
      deployment('plain', ['sh', '-c', 'while true; do echo tick; sleep 0.2; done'], ''),
    ].join('---\n'));
  });

  after(async () => {
    if (env === undefined) return;
    await env.ok(['delete', 'deployment', '--all', '--wait=false']);
    await until('pods gone', async () => ((await env.kubectl(['get', 'pods', '-o', 'name'])).stdout.trim() === '' ? true : undefined), 60_000).catch(() => undefined);
    const left = podLeftovers(env, SITE);
    await env.close();
    assert.deepEqual(left, []);
  });

  it('attach -i: input reaches a container with stdin (kept open between sessions without stdinOnce), with both kubectls', async (t) => {
    const pod = await runningPod('reader');
    for (const [version, binary] of both()) {
      const child = spawnWithInput(binary, ['attach', '-i', pod, '-c', 'main'], cli(binary));
      let text = '';
      let errors = '';
      child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      child.stdin?.write(`hello ${version}\n`);
      await until(`${version}: an answer to the input`, () => (text.includes(`got:hello ${version}\n`) ? true : undefined), 20_000).catch((error: Error) => {
        throw new Error(`${error.message}; stdout ${JSON.stringify(text.slice(-300))}, stderr ${JSON.stringify(errors.slice(-400))}`);
      });
      if (binary === kubectlNewest()) {
        // Round trips of one line each: kubectl → vK8s → tunnel → agent → socat → conmon → the container → its log → back.
        const took: number[] = [];
        for (let i = 0; i < 20; i += 1) {
          const started = performance.now();
          child.stdin?.write(`rt ${i}\n`);
          await waitFor(`round trip ${i}`, () => Promise.resolve(text.includes(`got:rt ${i}\n`) ? true : undefined), { timeoutMs: 10_000, intervalMs: 1 });
          took.push(performance.now() - started);
        }
        took.sort((a, b) => a - b);
        t.diagnostic(`attach -i line round trip over 20 lines: p50 ${took[10]?.toFixed(1)} ms, max ${took[19]?.toFixed(1)} ms`);
      }
      child.kill('SIGTERM');
    }
    // Neither session closed the container's stdin: the same instance still reads.
    assert.equal(await runningPod('reader'), pod);
    const logs = await env.ok(['logs', pod, '-c', 'main']);
    assert.doesNotMatch(logs, /stdin closed/);
  });

  it('attach -i with stdinOnce: the input\'s end closes the container\'s stdin, cat exits and the session ends', async () => {
    const pod = await runningPod('once');
    const binary = kubectlNewest();
    const run = await runKubectlWithInput(binary, ['attach', '-i', pod, '-c', 'main'], 'first line\nsecond line\n', cli(binary));
    assert.equal(run.stdout, 'first line\nsecond line\n', run.stderr);
    assert.equal(run.status, 0, run.stderr);
    await until('the container exited and restarts', async () => {
      const out = await env.kubectl(['get', 'pod', pod, '-o', 'jsonpath={.status.containerStatuses[?(@.name=="main")].restartCount}']);
      return Number(out.stdout) >= 1 ? true : undefined;
    }, 30_000);
  });

  it('attach -it: a shell on a terminal, sized and resized, with both kubectls; its log and status still work', async () => {
    let pod = await runningPod('shell');
    for (const [version, binary] of both()) {
      const term = spawnInTerminal(binary, [`--kubeconfig=${kubeconfig()}`, `--cache-dir=${cli(binary).cacheDir}`, 'attach', '-it', pod, '-c', 'main'], { cols: 80, rows: 24, home: cli(binary).cacheDir });
      await until(`${version}: attached`, () => (/try pressing enter/.test(term.output()) ? true : undefined), 20_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      term.write(`stty size; echo "hi ${version}"\r`);
      await until(`${version}: a terminal of 24x80`, () => (new RegExp(`\\r?\\n24 80\\r?\\nhi ${version.replace(/[()]/g, '\\$&')}`).test(term.output()) ? true : undefined), 10_000).catch((error: Error) => {
        throw new Error(`${error.message}; terminal ${JSON.stringify(term.output().slice(-400))}`);
      });
      term.resize(132, 50);
      await new Promise((resolve) => setTimeout(resolve, 300));
      term.write('stty size\r');
      await until(`${version}: resized to 50x132`, () => (/50 132/.test(term.output()) ? true : undefined), 10_000).catch((error: Error) => {
        throw new Error(`${error.message}; terminal ${JSON.stringify(term.output().slice(-400))}`);
      });
      if (binary === kubectl120()) {
        // Leaving without ending the shell: the container keeps running for the next session.
        term.kill();
        await term.exited;
      } else {
        term.write('exit 4\r');
        await until(`${version}: kubectl ends with the container`, () => term.exited.then(() => true), 20_000);
      }
    }
    // The shell's exit is the container's; the terminal's output is in its log, as stdout (carriage returns and all).
    pod = await runningPod('shell', 1);
    const logs = await env.ok(['logs', pod, '-c', 'main', '--previous']);
    assert.match(logs, /hi 1\.20 \(SPDY\)\r?\n/);
    const state = await env.ok(['get', 'pod', pod, '-o', 'jsonpath={.status.containerStatuses[?(@.name=="main")].lastState.terminated.exitCode}']);
    assert.equal(state, '4');
  });

  it('attach -i to a container without stdin: output as before, input goes nowhere (as kubelet with containerd or CRI-O)', async () => {
    const pod = await runningPod('plain');
    const binary = kubectl120();
    const child = spawnWithInput(binary, ['attach', '-i', pod, '-c', 'main'], cli(binary));
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stdin?.write('ignored\n');
    await until('ticks', () => ((text.match(/tick\n/g) ?? []).length >= 2 ? true : undefined), 15_000);
    child.kill('SIGTERM');
  });

  it('the injected sidecar refuses attach', async () => {
    const pod = await runningPod('reader');
    const run = await runKubectlWithInput(kubectlNewest(), ['attach', '-i', pod, '-c', 'edgeplane-sidecar'], 'x\n', cli(kubectlNewest()));
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /not allowed/);
  });
});
