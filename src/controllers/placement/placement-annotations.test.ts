import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRefList } from './placement-annotations.js';

const cases: ReadonlyArray<{ value: string; refs: string[]; problems?: string[] }> = [
  { value: 'system/a', refs: ['system/a'] },
  { value: 'system/a,svc-io-system/b', refs: ['system/a', 'svc-io-system/b'] },
  { value: 'system/a, svc-io-system/b', refs: ['system/a', 'svc-io-system/b'] },
  { value: '  system/a  ,\tsvc-io-system/b  ', refs: ['system/a', 'svc-io-system/b'] },
  { value: 'system/a,system/a', refs: ['system/a'] },
  { value: 'system/a,,system/b', refs: ['system/a', 'system/b'], problems: ['annotation k: empty entry in "system/a,,system/b"'] },
  { value: '', refs: [], problems: ['annotation k: empty value; expected namespace/name[,namespace/name…]'] },
  { value: 'a', refs: [], problems: ['annotation k: "a" is not a namespace/name reference'] },
  { value: 'a/b/c', refs: [], problems: ['annotation k: "a/b/c" is not a namespace/name reference'] },
  { value: '/b', refs: [], problems: ['annotation k: "/b" is not a namespace/name reference'] },
  { value: 'System/B', refs: [], problems: ['annotation k: "System/B" is not a namespace/name reference'] },
  { value: 'system/a b', refs: [], problems: ['annotation k: "system/a b" is not a namespace/name reference'] },
  { value: 'system/-a,system/ok', refs: ['system/ok'], problems: ['annotation k: "system/-a" is not a namespace/name reference'] },
];

describe('placement annotation lists', () => {
  for (const c of cases) {
    it(`placement annotation ${JSON.stringify(c.value)} parses to ${JSON.stringify(c.refs)}`, () => {
      const { refs, problems } = parseRefList('k', c.value);
      assert.deepEqual(
        refs.map((r) => `${r.namespace}/${r.name}`),
        c.refs,
      );
      assert.deepEqual(problems, c.problems ?? []);
    });
  }
});
