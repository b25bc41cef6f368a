import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFrame, encodeFrame } from './websocket/channel-frames.js';
import { headerList, negotiateSpdy, negotiateWebSocket, spdyRemoteCommandProtocol } from './protocols.js';
import { encodeStatus, exitCodeStatus, failureStatus, SUCCESS_STATUS } from './remote-status.js';
import { StreamError } from './stream-error.js';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { goHeaderDump, upgradeTransport } from './upgrade-request.js';

describe('protocol negotiation', () => {
  it('headerList splits repeated and comma-joined values', () => {
    assert.deepEqual(headerList(['v4.channel.k8s.io, v3.channel.k8s.io', 'channel.k8s.io']), ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'channel.k8s.io']);
    assert.deepEqual(headerList(undefined), []);
  });

  it('negotiateSpdy picks the client\'s first supported protocol', () => {
    assert.deepEqual(negotiateSpdy('v9.channel.k8s.io, v3.channel.k8s.io, v4.channel.k8s.io', 'exec'), { protocol: 'v3.channel.k8s.io' });
    assert.deepEqual(negotiateSpdy('portforward.k8s.io', 'portforward'), { protocol: 'portforward.k8s.io' });
    assert.deepEqual(negotiateSpdy(undefined, 'exec'), { protocol: '' });
    assert.equal(spdyRemoteCommandProtocol('').version, 1);
    assert.equal(spdyRemoteCommandProtocol('v4.channel.k8s.io').version, 4);
  });

  it('negotiateSpdy refuses unknown protocols with kubelet\'s 403 text', () => {
    const choice = negotiateSpdy('v4.channel.k8s.io', 'portforward');
    assert.ok('error' in choice);
    assert.equal(choice.error.code, 403);
    assert.equal(choice.error.message, 'unable to upgrade: unable to negotiate protocol: client supports [v4.channel.k8s.io], server accepts [portforward.k8s.io]');
  });

  it('negotiateWebSocket follows the client\'s order, tunnels SPDY port-forward, and refuses the unknown', () => {
    const clientNode = 'v5.channel.k8s.io,v4.channel.k8s.io,v3.channel.k8s.io,v2.channel.k8s.io,channel.k8s.io';
    const exec = negotiateWebSocket(clientNode, 'exec');
    assert.ok(exec.kind === 'channels' && exec.protocol.version === 5);
    const forward = negotiateWebSocket(clientNode, 'portforward');
    assert.ok(forward.kind === 'channels' && forward.header === 'v4.channel.k8s.io');
    assert.deepEqual(negotiateWebSocket('SPDY/3.1+portforward.k8s.io', 'portforward'), { kind: 'tunnel', header: 'SPDY/3.1+portforward.k8s.io' });
    assert.deepEqual(negotiateWebSocket('SPDY/3.1+portforward.k8s.io', 'exec'), { kind: 'none' });
    const bare = negotiateWebSocket(undefined, 'exec');
    assert.ok(bare.kind === 'channels' && bare.protocol.version === 1 && bare.header === undefined);
    const base64 = negotiateWebSocket('v4.base64.channel.k8s.io', 'exec');
    assert.ok(base64.kind === 'channels' && base64.protocol.base64);
  });

  it('upgradeTransport tells SPDY from WebSocket and refuses the rest like kube', () => {
    assert.equal(upgradeTransport({ connection: 'Upgrade', upgrade: 'SPDY/3.1' }, []), 'spdy');
    assert.equal(upgradeTransport({ connection: 'keep-alive, Upgrade', upgrade: 'websocket' }, []), 'websocket');
    assert.throws(() => upgradeTransport({}, []), (e: unknown) => e instanceof StreamError && e.status?.message === 'Upgrade request required' && e.code === 400);
    assert.throws(
      () => upgradeTransport({ connection: 'Upgrade', upgrade: 'h2c' }, ['connection', 'Upgrade', 'upgrade', 'h2c']),
      (e: unknown) => e instanceof StreamError && e.origin === 'node' && e.message === 'unable to upgrade: missing upgrade headers in request: http.Header{"Connection":[]string{"Upgrade"}, "Upgrade":[]string{"h2c"}}',
    );
    assert.equal(goHeaderDump(['x-a', '1', 'X-A', '2']), 'http.Header{"X-A":[]string{"1", "2"}}');
  });
});

describe('channel frames and statuses', () => {
  it('encodeFrame and decodeFrame round-trip binary and base64 channels', () => {
    const binary = encodeFrame(2, Buffer.from('hi'), false);
    assert.deepEqual(binary, Buffer.from([2, 104, 105]));
    const text = encodeFrame(1, Buffer.from('hi'), true);
    assert.equal(text, '1aGk=');
    assert.deepEqual(decodeFrame(Buffer.from('1aGk='), false, true), { channel: 1, data: Buffer.from('hi') });
    assert.deepEqual(decodeFrame(Buffer.from([255, 0]), true, false), { channel: 255, data: Buffer.from([0]) });
    assert.equal(decodeFrame(Buffer.alloc(0), true, false), null);
  });

  it('encodeStatus writes v4 JSON always and older protocols only failures as text', () => {
    const v4 = { name: 'v4.channel.k8s.io', version: 4, base64: false } as const;
    const v1 = { name: 'channel.k8s.io', version: 1, base64: false } as const;
    assert.equal(encodeStatus(SUCCESS_STATUS, v4)?.toString(), '{"metadata":{},"status":"Success"}');
    assert.equal(encodeStatus(SUCCESS_STATUS, v1), null);
    const exit = exitCodeStatus(3, ['sh', '-c', 'exit 3']);
    assert.deepEqual(JSON.parse(encodeStatus(exit, v4)?.toString() ?? ''), {
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
    assert.equal(encodeStatus(exit, v1)?.toString(), exit.message);
  });

  it('failureStatus keeps Status-shaped errors and reports others as kubelet\'s internal errors', () => {
    assert.deepEqual(failureStatus(new Error('boom'), 'exec'), {
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: error executing command in container: boom',
      reason: 'InternalError',
      details: { causes: [{ message: 'error executing command in container: boom' }] },
      code: 500,
    });
    assert.equal(failureStatus(new Error('gone'), 'attach').message, 'Internal error occurred: error attaching to container: gone');
    const status = failureStatus(StreamError.status(StatusError.badRequest('no')), 'exec');
    assert.deepEqual(status, { metadata: {}, status: 'Failure', message: 'no', reason: 'BadRequest', code: 400 });
  });
});
