import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conmonStdioArgs, containerStdio, NO_STDIO } from './container-stdio.js';

test('containerStdio reads stdin, stdinOnce and tty; anything but true is false', () => {
  assert.deepEqual(containerStdio({ name: 'a' }), NO_STDIO);
  assert.deepEqual(containerStdio({ name: 'a', stdin: true, stdinOnce: true, tty: true }), { stdin: true, stdinOnce: true, tty: true });
  assert.deepEqual(containerStdio({ name: 'a', stdin: 'true', tty: 1 }), NO_STDIO);
});

test('conmonStdioArgs: a terminal, else stdin kept open unless stdinOnce, else nothing', () => {
  assert.deepEqual(conmonStdioArgs(NO_STDIO), []);
  assert.deepEqual(conmonStdioArgs({ stdin: false, stdinOnce: true, tty: false }), []);
  assert.deepEqual(conmonStdioArgs({ stdin: true, stdinOnce: false, tty: false }), ['-i', '--leave-stdin-open']);
  assert.deepEqual(conmonStdioArgs({ stdin: true, stdinOnce: true, tty: false }), ['-i']);
  assert.deepEqual(conmonStdioArgs({ stdin: true, stdinOnce: true, tty: true }), ['-t']);
  assert.deepEqual(conmonStdioArgs({ stdin: false, stdinOnce: false, tty: true }), ['-t']);
});
