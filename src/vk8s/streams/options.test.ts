import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { parseLogQuery } from './log-options.js';
import { parseWebSocketPorts } from './port-forward-options.js';
import { expectedStreamCount, parseAttachOptions, parseExecOptions } from './remote-command-options.js';
import { StreamError } from './stream-error.js';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}

describe('exec and attach options', () => {
  it('parseExecOptions reads booleans like apimachinery (absent, 0, false are false; anything else, even empty, is true)', () => {
    const options = parseExecOptions(q('command=ls&command=%2Ftmp&stdin&stdout=1&stderr=FALSE&tty=0'), 'c');
    assert.deepEqual(options, { container: 'c', stdin: true, stdout: true, stderr: false, tty: false, command: ['ls', '/tmp'] });
  });

  it('parseAttachOptions drops stderr for a terminal, as kubelet does', () => {
    assert.deepEqual(parseAttachOptions(q('stdout=true&stderr=true&tty=true'), 'c'), { container: 'c', stdin: false, stdout: true, stderr: false, tty: true });
  });

  it('parseExecOptions without any stream is kubelet\'s 400 text', () => {
    const error = thrown(() => parseExecOptions(q('command=ls&stderr=true&tty=true'), 'c'));
    assert.ok(error instanceof StreamError);
    assert.deepEqual([error.origin, error.code, error.message], ['node', 400, 'you must specify at least 1 of stdin, stdout, stderr']);
  });

  it('expectedStreamCount counts the error stream, and resize only for terminals on v3+', () => {
    const options = parseAttachOptions(q('stdin=1&stdout=1&tty=1'), 'c');
    assert.equal(expectedStreamCount(options, true), 4);
    assert.equal(expectedStreamCount(options, false), 3);
  });
});

describe('port-forward ports', () => {
  it('parseWebSocketPorts accepts repeated and comma-separated ports', () => {
    assert.deepEqual(parseWebSocketPorts(q('ports=80&ports=443,8080')), [80, 443, 8080]);
  });

  it('parseWebSocketPorts refuses like kube: decoding is a 400 Status, missing or zero ports are kubelet text', () => {
    const bad = thrown(() => parseWebSocketPorts(q('ports=http')));
    assert.ok(bad instanceof StreamError && bad.status !== undefined);
    assert.equal(bad.status.message, 'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax');
    const big = thrown(() => parseWebSocketPorts(q('ports=70000')));
    assert.ok(big instanceof StreamError);
    assert.match(big.message, /value out of range/);
    const none = thrown(() => parseWebSocketPorts(q('')));
    assert.ok(none instanceof StreamError);
    assert.deepEqual([none.origin, none.code, none.message], ['node', 400, 'query parameter "port" is required']);
    const zero = thrown(() => parseWebSocketPorts(q('ports=0')));
    assert.ok(zero instanceof StreamError);
    assert.equal(zero.message, 'port "0" must be > 0');
  });
});

describe('log options', () => {
  it('parseLogQuery decodes every option client-node and kubectl send', () => {
    const options = parseLogQuery(q('container=c&follow=true&pretty=false&previous=false&tailLines=10&timestamps=true&limitBytes=500'), 'p');
    assert.deepEqual(options, { container: 'c', follow: true, previous: false, timestamps: true, tailLines: 10, limitBytes: 500 });
    assert.deepEqual(parseLogQuery(q('sinceTime=2020-01-02T03:04:05Z'), 'p').sinceTime, '2020-01-02T03:04:05Z');
    assert.equal(parseLogQuery(q('tailLines=0'), 'p').tailLines, 0);
  });

  it('parseLogQuery answers bad numbers with Go\'s strconv message (400)', () => {
    const error = thrown(() => parseLogQuery(q('tailLines=ten'), 'p'));
    assert.ok(error instanceof StatusError);
    assert.deepEqual([error.code, error.message], [400, 'strconv.ParseInt: parsing "ten": invalid syntax']);
    const time = thrown(() => parseLogQuery(q('sinceTime=yesterday'), 'p'));
    assert.ok(time instanceof StatusError && time.code === 400);
  });

  it('parseLogQuery validates like ValidatePodLogOptions (422 PodLogOptions)', () => {
    const error = thrown(() => parseLogQuery(q('tailLines=-1&limitBytes=0'), 'web'));
    assert.ok(error instanceof StatusError);
    assert.equal(error.code, 422);
    assert.equal(error.message, 'PodLogOptions "web" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]');
    const both = thrown(() => parseLogQuery(q('sinceSeconds=5&sinceTime=2020-01-02T03:04:05Z'), 'web'));
    assert.ok(both instanceof StatusError);
    assert.equal(both.message, 'PodLogOptions "web" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
    const since = thrown(() => parseLogQuery(q('sinceSeconds=0'), 'web'));
    assert.ok(since instanceof StatusError);
    assert.equal(since.message, 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0');
  });
});
