import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkedLines } from './watch-connection.js';

const framed = (line: string): string => `${Buffer.byteLength(line, 'latin1').toString(16)}\r\n${line}\r\n`;

describe('ChunkedLines', () => {
  it('ChunkedLines de-chunks a body cut at every possible place into the same lines', () => {
    const body = `${framed('{"seq":"1"}\n')}${framed('{"seq":"2"}\n{"se')}${framed('q":"3"}\n')}0\r\n\r\n`;
    for (let cut = 0; cut <= body.length; cut++) {
      for (const step of [1, 3, body.length]) {
        const lines: string[] = [];
        const reader = new ChunkedLines((line) => lines.push(line));
        reader.push(body.slice(0, cut));
        for (let at = cut; at < body.length; at += step) reader.push(body.slice(at, at + step));
        assert.deepEqual(lines, ['{"seq":"1"}', '{"seq":"2"}', '{"seq":"3"}'], `cut at ${cut}, then ${step} at a time`);
      }
    }
  });
});
