import assert from 'node:assert/strict';
import { systemTimers } from '../../../../common/timers.js';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { runLifecycleHook, type HookTarget } from './lifecycle-hooks.js';
import type { Dial, ExecInContainer } from './prober.js';

/** Dials on the host's loopback and hands the socket over paused, as the netns broker does. */
const dial: Dial = (host, port) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
  });

const noExec: ExecInContainer = () => Promise.reject(new Error('no exec here'));
const target = (exec: ExecInContainer = noExec): HookTarget => ({ podIP: '127.0.0.1', container: { name: 'app', ports: [{ name: 'web', containerPort: 0 }] }, pod: 'web_default(u1)', dial, exec, timers: systemTimers() });

const server = createServer();
after(() => server.close());

describe('lifecycle hooks, as kubelet runs them', () => {
  it("httpGet GETs http://<pod IP>:<named port>/<path> with Go's User-Agent; any status is success", async () => {
    const seen: Array<{ url?: string; headers: IncomingHttpHeaders }> = [];
    server.on('request', (req, res) => {
      seen.push({ ...(req.url === undefined ? {} : { url: req.url }), headers: req.headers });
      res.statusCode = 500;
      res.end('broken');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const hook = { httpGet: { path: '/stop', port: 'web', scheme: 'HTTPS', httpHeaders: [{ name: 'X-Ignored', value: '1' }] } };
    const withPort = { ...target(), container: { name: 'app', ports: [{ name: 'web', containerPort: port }] } };
    assert.equal(await runLifecycleHook(hook, 2000, withPort), undefined, 'a 500 is no failure for a hook');
    assert.equal(seen[0]?.url, '/stop');
    assert.equal(seen[0]?.headers['user-agent'], 'Go-http-client/1.1');
    assert.equal(seen[0]?.headers['x-ignored'], undefined, 'kubelet 1.17 sends no hook headers');
  });

  it('httpGet fails, in kubelet\'s words, when nothing answers', async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await runLifecycleHook({ httpGet: { path: 'stop', port } }, 2000, target());
    assert.equal(failure, `Http lifecycle hook (stop) for Container "app" in Pod "web_default(u1)" failed - error: Get http://127.0.0.1:${port}/stop: dial tcp 127.0.0.1:${port}: connect: connection refused, message: ""`);
    assert.match(String(await runLifecycleHook({ httpGet: { port: 'nope' } }, 2000, target())), /failed - error: .*strconv\.Atoi: parsing "nope": invalid syntax/);
  });

  it('exec runs the command in the container within the time given, and fails on a non-zero exit or an error', async () => {
    const ran: Array<{ command: readonly string[]; timeoutMs: number }> = [];
    const exec: ExecInContainer = (command, timeoutMs) => {
      ran.push({ command, timeoutMs });
      return Promise.resolve(command[2] === 'exit 3' ? { exitCode: 3, output: 'bad\n' } : { exitCode: 0, output: '' });
    };
    assert.equal(await runLifecycleHook({ exec: { command: ['sh', '-c', 'true'] } }, 1500, target(exec)), undefined);
    assert.deepEqual(ran[0], { command: ['sh', '-c', 'true'], timeoutMs: 1500 });
    assert.equal(
      await runLifecycleHook({ exec: { command: ['sh', '-c', 'exit 3'] } }, 1500, target(exec)),
      'Exec lifecycle hook ([sh -c exit 3]) for Container "app" in Pod "web_default(u1)" failed - error: command \'sh -c exit 3\' exited with 3: bad\n, message: "bad\\n"',
    );
    assert.match(String(await runLifecycleHook({ exec: { command: ['x'] } }, 0, target())), /failed - error: no exec here, message: ""/);
  });
});
