import { Worker } from 'node:worker_threads';

/** Reads `file` in a loop on another thread until told to stop; answers the digest of every distinct content seen. */
const READER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const seen = new Map();
let stop = false;
parentPort.on('message', () => { stop = true; });
function loop() {
  for (let i = 0; i < 200; i++) {
    const text = readFileSync(workerData.file, 'utf8');
    const digest = createHash('sha256').update(text).digest('hex');
    seen.set(digest, (seen.get(digest) || 0) + 1);
  }
  if (stop) parentPort.postMessage([...seen]); else setImmediate(loop);
}
parentPort.postMessage('started');
loop();
`;

/** A reader of `file` on another thread (it must exist); `stop()` answers [sha256 hex, times read] of every distinct content it read. */
export async function startReaderThread(file: string): Promise<{ stop(): Promise<Array<[string, number]>> }> {
  const worker = new Worker(READER, { eval: true, workerData: { file } });
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      const seen = await new Promise<Array<[string, number]>>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage('stop');
      });
      await worker.terminate();
      return seen;
    },
  };
}
