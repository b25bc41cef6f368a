import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSelector, matchesSelector, parseSelector } from './selector.js';

const labels = { app: 'web', tier: 'front', 'svc.io/siteType': 'svc-io-re', replicas: '3' };

describe('label selector', () => {
  it('parses every operator and matches like kube-apiserver', () => {
    const cases: Array<[string, boolean]> = [
      ['', true],
      ['app=web', true],
      ['app==web', true],
      ['app!=web', false],
      ['app!=api', true],
      ['missing!=x', true],
      ['app in (web, api)', true],
      ['app notin (web)', false],
      ['missing notin (web)', true],
      ['app', true],
      ['!app', false],
      ['!missing', true],
      ['app=web,tier=front', true],
      ['app=web, tier=back', false],
      ['svc.io/siteType=svc-io-re', true],
      ['replicas>2', true],
      ['replicas<3', false],
      ['app=', false],
      ['empty=,app', false],
    ];
    for (const [text, expected] of cases) assert.equal(matchesSelector(parseSelector(text), labels), expected, text);
    assert.equal(matchesSelector(parseSelector('empty='), { empty: '' }), true);
  });

  it('formats requirements canonically (sets sorted and deduplicated)', () => {
    assert.equal(formatSelector(parseSelector(' app in (b,a,b) , !x ,y!=z ')), 'app in (a,b),!x,y!=z');
  });

  it('rejects malformed selectors with a message naming the problem', () => {
    const cases: Array<[string, RegExp]> = [
      ['app in (a', /Cannot parse label selector "app in \(a": missing closing parenthesis/],
      ['app in ()', /set of values must not be empty/],
      ['app in a', /expected "\(" after "in"/],
      ['app=web,', /missing after the last ","/],
      ['app web', /unexpected "web" after "app"/],
      ['-bad=x', /invalid label key "-bad"/],
      ['app=-bad', /invalid label value "-bad"/],
      ['n>x', /must be an integer/],
      ['a=b c=d', /unexpected|separated/],
    ];
    for (const [text, pattern] of cases) assert.throws(() => parseSelector(text), pattern, text);
  });
});
