import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResizeDecoder } from './resize-decoder.js';
import type { TerminalSize } from './types.js';

async function decode(chunks: readonly string[]): Promise<TerminalSize[]> {
  const decoder = new ResizeDecoder();
  for (const chunk of chunks) decoder.write(Buffer.from(chunk));
  decoder.end();
  const sizes: TerminalSize[] = [];
  for await (const size of decoder) sizes.push(size as TerminalSize);
  return sizes;
}

describe('ResizeDecoder', () => {
  it('decodes consecutive size objects split anywhere', async () => {
    const sizes = await decode(['{"Width":80,"He', 'ight":24}\n{"Width":1', '20,"Height":40}{"Width":1,"Height":2}']);
    assert.deepEqual(sizes, [
      { width: 80, height: 24 },
      { width: 120, height: 40 },
      { width: 1, height: 2 },
    ]);
  });

  it('skips objects without sizes and braces inside strings', async () => {
    assert.deepEqual(await decode(['{"note":"}{"}', '{"Width":"x","Height":1}', 'garbage{"Width":2,"Height":3}']), [{ width: 2, height: 3 }]);
  });
});
