import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandVariables } from './variable-expansion.js';

test('$(VAR) expands as kubelet expands it', () => {
  const vars = new Map([['A', 'x'], ['EMPTY', '']]);
  const expand = (text: string): string => expandVariables(text, (name) => vars.get(name));
  const cases: Array<[string, string]> = [
    ['$(A)', 'x'],
    ['pre-$(A)-post', 'pre-x-post'],
    ['$(A)$(A)', 'xx'],
    ['$(EMPTY)!', '!'],
    ['$(MISSING)', '$(MISSING)'],
    ['$$(A)', '$(A)'],
    ['$$$(A)', '$x'],
    ['$A', '$A'],
    ['$(A', '$(A'],
    ['cost: 5$', 'cost: 5$'],
    ['$()', '$()'],
    ['', ''],
  ];
  for (const [input, output] of cases) assert.equal(expand(input), output, input);
});
