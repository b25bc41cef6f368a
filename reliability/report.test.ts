import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeReliabilityDocument } from './report.js';

test('a run of some areas replaces their sections and keeps the others, in the areas\' order', () => {
  const previous = '# Reliability evidence\n\nold header\n\n## crashes\n\nold crashes\n\n## fuzz\n\nold fuzz\n\n## isolation\n\nold isolation\n';
  const merged = mergeReliabilityDocument(previous, new Map([['fuzz', '## fuzz\n\nnew fuzz\n']]), ['crashes', 'fuzz', 'isolation', 'secrets-at-rest']);
  assert.match(merged, /## crashes\n\nold crashes\n\n## fuzz\n\nnew fuzz\n\n## isolation\n\nold isolation\n$/);
  assert.ok(!merged.includes('old header'));
  assert.ok(!merged.includes('old fuzz'));
});

test('the first run writes only what ran', () => {
  const merged = mergeReliabilityDocument(undefined, new Map([['isolation', '## isolation\n\nfigures\n']]), ['crashes', 'isolation']);
  assert.match(merged, /^# Reliability evidence/);
  assert.ok(merged.endsWith('## isolation\n\nfigures\n'));
  assert.ok(!merged.includes('## crashes'));
});
