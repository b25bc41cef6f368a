import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatKubeletTime, LineSplitter, LogRenderer, parseCriLine, PartialJoiner, rfc3339Nanos, sinceNanos, TailWindow, type LogEntry } from './cri-log.js';

const rec = (line: string) => parseCriLine(Buffer.from(line));
const entry = (time: string, text: string): LogEntry => ({ time, nanos: rfc3339Nanos(time) as bigint, stream: 'stdout', content: Buffer.from(text) });

describe('CRI log parsing (conmon\'s k8s-file format, kubelet\'s reading)', () => {
  it('parses records, tags with options, empty full lines, and skips what is not a record', () => {
    assert.deepEqual(rec('2026-11-27T10:00:00.123456789+00:00 stdout F hello world'), { time: '2026-11-27T10:00:00.123456789+00:00', stream: 'stdout', partial: false, content: Buffer.from('hello world') });
    assert.equal(rec('2026-11-27T10:00:00Z stderr P:x part')?.partial, true);
    assert.deepEqual(rec('2026-11-27T10:00:00Z stdout F')?.content, Buffer.alloc(0));
    assert.equal(rec('not a record'), undefined);
    assert.equal(rec('2026-11-27T10:00:00Z stdin F x'), undefined);
    assert.equal(rec('yesterday stdout F x'), undefined);
  });

  it('formats timestamps as Go\'s RFC3339Nano: trailing zeros dropped, Z for a zero offset', () => {
    assert.equal(formatKubeletTime('2026-11-27T10:00:00.120000000+00:00'), '2026-11-27T10:00:00.12Z');
    assert.equal(formatKubeletTime('2026-11-27T10:00:00.000000000+00:00'), '2026-11-27T10:00:00Z');
    assert.equal(formatKubeletTime('2026-11-27T10:00:00.5+01:00'), '2026-11-27T10:00:00.5+01:00');
  });

  it('compares times across offsets to the nanosecond', () => {
    assert.equal(rfc3339Nanos('2026-11-27T11:00:00.000000001+01:00'), rfc3339Nanos('2026-11-27T10:00:00.000000001Z'));
    assert.ok((rfc3339Nanos('2026-11-27T10:00:00.000000002Z') as bigint) > (rfc3339Nanos('2026-11-27T10:00:00.000000001Z') as bigint));
    assert.equal(sinceNanos({ sinceSeconds: 10 }, 20_000), 10_000_000_000n);
    assert.equal(sinceNanos({ sinceTime: '1970-01-01T00:00:01Z' }, 0), 1_000_000_000n);
  });

  it('splits bytes into lines across chunks, keeping the unfinished line', () => {
    const splitter = new LineSplitter();
    assert.deepEqual(splitter.push(Buffer.from('ab\ncd')).map(String), ['ab']);
    assert.deepEqual(splitter.push(Buffer.from('e\n\nf')).map(String), ['cde', '']);
    assert.equal(splitter.flush()?.toString(), 'f');
    assert.equal(splitter.flush(), undefined);
  });

  it('joins partial fragments per stream, with the first fragment\'s time; the log ending mid-line is flushed as is', () => {
    const joiner = new PartialJoiner();
    assert.equal(joiner.push(rec('2026-11-27T10:00:01Z stdout P hel')!), undefined);
    const err = joiner.push(rec('2026-11-27T10:00:02Z stderr F oops')!);
    assert.equal(err?.content.toString(), 'oops\n');
    const out = joiner.push(rec('2026-11-27T10:00:03Z stdout F lo')!);
    assert.equal(out?.content.toString(), 'hello\n');
    assert.equal(out?.time, '2026-11-27T10:00:01Z');
    joiner.push(rec('2026-11-27T10:00:04Z stdout P tail')!);
    assert.deepEqual(joiner.flush().map((e) => e.content.toString()), ['tail']);
  });

  it('keeps the last n entries (none for 0, all without a size)', () => {
    const window = new TailWindow(2);
    for (let i = 0; i < 7; i++) window.push(entry('2026-11-27T10:00:00Z', `${i}\n`));
    assert.deepEqual(window.drain().map((e) => e.content.toString()), ['5\n', '6\n']);
    const none = new TailWindow(0);
    none.push(entry('2026-11-27T10:00:00Z', 'x\n'));
    assert.deepEqual(none.drain(), []);
    const all = new TailWindow(undefined);
    for (let i = 0; i < 3; i++) all.push(entry('2026-11-27T10:00:00Z', `${i}\n`));
    assert.equal(all.drain().length, 3);
  });

  it('renders with timestamps, drops entries before since, and cuts exactly at limitBytes (the prefix counts)', () => {
    const renderer = new LogRenderer({ timestamps: true, since: rfc3339Nanos('2026-11-27T10:00:01Z')!, limitBytes: 35 });
    assert.equal(renderer.render(entry('2026-11-27T10:00:00.9Z', 'old\n')).length, 0);
    assert.equal(renderer.render(entry('2026-11-27T10:00:01.000000000+00:00', 'first\n')).toString(), '2026-11-27T10:00:01Z first\n');
    assert.equal(renderer.render(entry('2026-11-27T10:00:02Z', 'second line\n')).toString(), '2026-11-');
    assert.equal(renderer.done, true);
    assert.equal(renderer.render(entry('2026-11-27T10:00:03Z', 'more\n')).length, 0);
  });
});
