import type { Writable } from 'node:stream';
import type { SiteStreamIo } from '../../../../site-api/pod-streams.js';
import { readInstanceLog, type InstanceLog } from './cri-log-reader.js';

function write(stream: Writable | undefined, bytes: Buffer): Promise<void> | undefined {
  if (stream === undefined || stream.destroyed || bytes.length === 0) return undefined;
  if (stream.write(bytes)) return undefined;
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
}

/**
 * The output half of `kubectl attach`: what the running container writes from now on, read
 * from its CRI log as conmon writes it (from the live file's end, across rotations), each
 * record to stdout or stderr by its stream tag, fragments passed on as they come. Resolves
 * when the container has exited and its last output was passed on, or on abort. A slow
 * client slows the reading, never the container (conmon writes the file regardless).
 * `onFollowing` is called once the starting point is fixed and read up to (so input sent
 * after it gets its answers shown).
 */
export async function attachOutput(target: InstanceLog, io: SiteStreamIo, onFollowing?: () => void): Promise<void> {
  let following = false;
  for await (const batch of readInstanceLog(target, { from: 'end', follow: true, signal: io.signal })) {
    if (!('records' in batch)) {
      if (!following) onFollowing?.();
      following = true;
      continue;
    }
    for (const record of batch.records) {
      const bytes = record.partial ? record.content : Buffer.concat([record.content, NEWLINE]);
      await write(record.stream === 'stdout' ? io.stdout : io.stderr, bytes);
    }
  }
}

const NEWLINE = Buffer.from('\n');
