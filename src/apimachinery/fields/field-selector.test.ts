import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesFieldSelector, parseFieldSelector, unsupportedFields } from './field-selector.js';

describe('field selector', () => {
  it('parses =, == and != joined by commas, with escapes', () => {
    assert.deepEqual(parseFieldSelector('metadata.name=web, status.phase!=Running,spec.nodeName==n1'), [
      { field: 'metadata.name', operator: 'Equals', value: 'web' },
      { field: 'status.phase', operator: 'NotEquals', value: 'Running' },
      { field: 'spec.nodeName', operator: 'Equals', value: 'n1' },
    ]);
    assert.deepEqual(parseFieldSelector('metadata.name=a\\,b\\=c'), [{ field: 'metadata.name', operator: 'Equals', value: 'a,b=c' }]);
    assert.deepEqual(parseFieldSelector(''), []);
    assert.deepEqual(parseFieldSelector('spec.nodeName='), [{ field: 'spec.nodeName', operator: 'Equals', value: '' }]);
  });

  it('matches against the values of the kind\'s fields', () => {
    const pod = { 'metadata.name': 'web-1', 'metadata.namespace': 'default', 'status.phase': 'Pending', 'spec.nodeName': '' };
    assert.equal(matchesFieldSelector(parseFieldSelector('metadata.name=web-1'), pod), true);
    assert.equal(matchesFieldSelector(parseFieldSelector('metadata.name=web-1,status.phase=Running'), pod), false);
    assert.equal(matchesFieldSelector(parseFieldSelector('status.phase!=Running'), pod), true);
    assert.equal(matchesFieldSelector(parseFieldSelector('spec.nodeName='), pod), true);
    assert.deepEqual(unsupportedFields(parseFieldSelector('metadata.name=a,spec.image=x'), new Set(['metadata.name'])), ['spec.image']);
  });

  it('rejects malformed selectors', () => {
    for (const bad of ['name', 'a=b=c', '=x', 'a=b\\q', 'a!b']) assert.throws(() => parseFieldSelector(bad), /invalid selector/, bad);
  });
});
