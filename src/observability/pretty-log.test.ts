import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from './logger.js';
import { formatLogLine } from './pretty-log.js';

describe('pretty log lines', () => {
  const at = new Date(2026, 0, 2, 3, 4, 5, 67).toISOString();

  it('time of day, level, message, then the other fields as key=value; pid and name left out', () => {
    const line = JSON.stringify({ level: 30, time: at, pid: 1, name: 'edgeplane', url: 'https://127.0.0.1:6443', sites: ['a', 'b'], store: 'sqlite /x y', n: 3, msg: 'serving HTTPS' });
    assert.equal(formatLogLine(line), '03:04:05.067 INFO  serving HTTPS url=https://127.0.0.1:6443 sites=["a","b"] store="sqlite /x y" n=3\n');
  });

  it('an error\'s stack follows at level error; a warning shows the message only', () => {
    const err = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.js:1:1)' };
    assert.equal(formatLogLine(JSON.stringify({ level: 50, time: at, err, msg: 'failed' })), '03:04:05.067 ERROR failed err=boom\n    Error: boom\n    at f (x.js:1:1)\n');
    assert.equal(formatLogLine(JSON.stringify({ level: 40, time: at, err, msg: 'retrying' })), '03:04:05.067 WARN  retrying err=boom\n');
  });

  it('colours only when asked; what is not a JSON object passes through', () => {
    assert.ok(formatLogLine(JSON.stringify({ level: 40, time: at, msg: 'w' }), { color: true }).includes('\u001b[33mWARN \u001b[0m'));
    assert.equal(formatLogLine('plain text'), 'plain text\n');
    assert.equal(formatLogLine('[1,2]\n'), '[1,2]\n');
  });

  it('createLogger: JSON to a given destination unless pretty is asked; secrets redacted either way', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => void (lines.push(chunk.toString()), done()) });
    createLogger({ destination: sink }).info({ user: { token: 't0p' } }, 'json');
    createLogger({ destination: sink, format: 'pretty' }).info({ user: { token: 't0p' } }, 'pretty');
    assert.equal((JSON.parse(lines[0] ?? '') as { user: { token: string } }).user.token, '[redacted]');
    assert.match(lines[1] ?? '', /^\d\d:\d\d:\d\d\.\d{3} INFO {2}pretty user=\{"token":"\[redacted\]"\}\n$/);
  });
});
