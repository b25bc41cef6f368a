import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { ChunkWriter, MAX_JOINED_BYTES } from './chunk-writer.js';

/** A response whose socket records what is written to it and answers `accept` to each write. */
function fakeResponse(): { response: ServerResponse; socket: EventEmitter & { log: string[]; written: Buffer[]; accept: boolean } } {
  const socket = Object.assign(new EventEmitter(), {
    log: [] as string[],
    written: [] as Buffer[],
    accept: true,
    write(chunk: Buffer): boolean {
      socket.written.push(chunk);
      socket.log.push(`write ${chunk.length}`);
      return socket.accept;
    },
    cork(): void {
      socket.log.push('cork');
    },
    uncork(): void {
      socket.log.push('uncork');
    },
  });
  const response = Object.assign(new EventEmitter(), { socket, write: () => assert.fail('the socket is written to directly') });
  return { response: response as unknown as ServerResponse, socket };
}

const chunk = (bytes: number, fill = 'x'): Buffer => Buffer.from(fill.repeat(bytes));

describe('chunk writer', () => {
  it('writes one chunk as it is, and a group that fits a TLS record as one joined buffer', () => {
    const { response, socket } = fakeResponse();
    const writer = new ChunkWriter(response);
    const one = chunk(100);
    writer.write([one]);
    assert.equal(socket.written[0], one);
    const joins: Buffer[][] = [];
    const group = [chunk(100, 'a'), chunk(200, 'b')];
    writer.write(group, (chunks) => {
      joins.push([...chunks]);
      return Buffer.concat(chunks);
    });
    assert.deepEqual(joins, [group]);
    assert.deepEqual(socket.log, ['write 100', 'write 300']);
  });

  it('writes a group larger than a record corked, chunk by chunk, never joining a copy of it', () => {
    const { response, socket } = fakeResponse();
    const writer = new ChunkWriter(response);
    const group = [chunk(MAX_JOINED_BYTES / 2), chunk(MAX_JOINED_BYTES / 2), chunk(1)];
    writer.write(group, () => assert.fail('a group over one record is not joined'));
    assert.deepEqual(socket.log, ['cork', `write ${MAX_JOINED_BYTES / 2}`, `write ${MAX_JOINED_BYTES / 2}`, 'write 1', 'uncork']);
    group.forEach((c, i) => assert.equal(socket.written[i], c, 'the shared chunk itself is written'));
  });

  it('counts the chunks written while the socket asks to be drained, until it drains', async () => {
    const { response, socket } = fakeResponse();
    const writer = new ChunkWriter(response);
    socket.accept = false;
    writer.write([chunk(10)]);
    writer.write([chunk(10), chunk(10)]);
    assert.equal(writer.backlog, 3);
    let drained = false;
    const waiting = writer.drained().then(() => (drained = true));
    await Promise.resolve();
    assert.equal(drained, false);
    socket.emit('drain');
    await waiting;
    assert.equal(writer.backlog, 0);
  });
});
