import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import type { SiteLogOptions } from '../../../../site-api/pod-streams.js';
import { containerLogStream } from './container-log-stream.js';

const root = mkdtempSync(join(tmpdir(), 'cri-log-stream-'));
let n = 0;
const T = (s: number, ns = 0): string => `2026-11-27T10:00:${String(s).padStart(2, '0')}.${String(ns).padStart(9, '0')}+00:00`;
const line = (s: number, text: string, tag = 'F', stream = 'stdout'): string => `${T(s)} ${stream} ${tag} ${text}\n`;

/** A container instance's folder: its live log, rotated files, and an exit folder. */
function instance(files: { rotated?: string[]; live?: string } = {}) {
  const dir = join(root, String(n++));
  mkdirSync(join(dir, 'exit'), { recursive: true });
  const log = join(dir, 'container.log');
  (files.rotated ?? []).forEach((text, i) => writeFileSync(`${log}.20261127-10000${i}`, text));
  if (files.live !== undefined) writeFileSync(log, files.live);
  let ended = false;
  return { log, target: { log, watch: [join(dir, 'exit')], ended: () => ended }, end: () => (ended = true) };
}

const base: SiteLogOptions = { follow: false, previous: false, timestamps: false };

async function all(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('container log stream (kubelet\'s log reading over conmon\'s files)', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('reads rotated files oldest first, then the live one; --tail counts across them', async () => {
    const { target } = instance({ rotated: [line(1, 'a') + line(2, 'b'), line(3, 'c')], live: line(4, 'd') + line(5, 'e') });
    assert.equal(await all(containerLogStream(target, base, 0)), 'a\nb\nc\nd\ne\n');
    assert.equal(await all(containerLogStream(target, { ...base, tailLines: 4 }, 0)), 'b\nc\nd\ne\n');
    assert.equal(await all(containerLogStream(target, { ...base, tailLines: 0 }, 0)), '');
  });

  it('joins partial lines (also across a rotation), and shows a line the log ended in', async () => {
    const { target } = instance({ rotated: [line(1, 'hel', 'P')], live: line(1, 'lo') + line(2, 'unfinished', 'P') });
    assert.equal(await all(containerLogStream(target, base, 0)), 'hello\nunfinished');
  });

  it('--since-time, --since (from now), --timestamps and --limit-bytes mid-line', async () => {
    const { target } = instance({ live: line(1, 'one') + line(2, 'two') + line(3, 'three', 'F', 'stderr') });
    assert.equal(await all(containerLogStream(target, { ...base, sinceTime: '2026-11-27T10:00:02Z' }, 0)), 'two\nthree\n');
    assert.equal(await all(containerLogStream(target, { ...base, sinceSeconds: 1 }, Date.parse('2026-11-27T10:00:04Z'))), 'three\n');
    assert.equal(await all(containerLogStream(target, { ...base, timestamps: true, tailLines: 1 }, 0)), '2026-11-27T10:00:03Z three\n');
    assert.equal(await all(containerLogStream(target, { ...base, limitBytes: 6 }, 0)), 'one\ntw');
    assert.equal(await all(containerLogStream(target, { ...base, tailLines: 2, sinceTime: '2026-11-27T10:00:03Z' }, 0)), 'three\n');
  });

  it('follows: new lines within milliseconds, across a rotation, until the instance ended', async () => {
    const { log, target, end } = instance({ live: line(1, 'before') });
    const stream = containerLogStream(target, { ...base, follow: true, tailLines: 1 }, 0);
    const got: string[] = [];
    const waitFor = async (text: string): Promise<number> => {
      const start = Date.now();
      while (!got.join('').includes(text)) {
        assert.ok(Date.now() - start < 2000, `waiting for ${text}, got ${JSON.stringify(got.join(''))}`);
        await new Promise((r) => setTimeout(r, 2));
      }
      return Date.now() - start;
    };
    stream.on('data', (chunk) => got.push(String(chunk)));
    const done = new Promise((resolve) => stream.once('end', resolve));
    await waitFor('before\n');
    appendFileSync(log, line(2, 'written'));
    assert.ok((await waitFor('written\n')) < 200, 'inotify wakes the reader');
    appendFileSync(log, line(3, 'late in the old file', 'P'));
    renameSync(log, `${log}.20261127-100003`);
    appendFileSync(`${log}.20261127-100003`, line(3, ' still'));
    writeFileSync(log, line(4, 'after rotation'));
    await waitFor('after rotation\n');
    assert.equal(got.join(''), 'before\nwritten\nlate in the old file still\nafter rotation\n');
    appendFileSync(log, line(5, 'last words'));
    end();
    await done;
    assert.equal(got.join(''), 'before\nwritten\nlate in the old file still\nafter rotation\nlast words\n');
  });

  it('stops following when destroyed, and a follow of an ended instance ends at once', async () => {
    const running = instance({ live: line(1, 'x') });
    const stream = containerLogStream(running.target, { ...base, follow: true }, 0);
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.once('data', () => stream.destroy());
    await closed;
    const ended = instance({ live: line(1, 'y') });
    ended.end();
    assert.equal(await all(containerLogStream(ended.target, { ...base, follow: true }, 0)), 'y\n');
  });
});
