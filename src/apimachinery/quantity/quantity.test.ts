import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Quantity, QuantityError } from './quantity.js';

describe('Quantity', () => {
  it('prints the canonical forms kube-apiserver stores', () => {
    const cases: Array<[string, string]> = [
      ['100m', '100m'],
      ['0.1', '100m'],
      ['.5', '500m'],
      ['1.5', '1500m'],
      ['1000', '1k'],
      ['1000m', '1'],
      ['2000000', '2M'],
      ['1e3', '1e3'],
      ['1.5e3', '1500'],
      ['100Mi', '100Mi'],
      ['1024Mi', '1Gi'],
      ['0.5Gi', '512Mi'],
      ['1.5Ki', '1536'],
      ['512', '512'],
      ['0.5Ki', '512'],
      ['0', '0'],
      ['-100m', '-100m'],
      ['+5', '5'],
      ['1n', '1n'],
      ['0.5n', '1n'],
      ['1200u', '1200u'],
      ['1G', '1G'],
      ['1Ei', '1Ei'],
    ];
    for (const [input, canonical] of cases) assert.equal(Quantity.parse(input).toString(), canonical, input);
  });

  it('gives values in units and thousandths, rounding up', () => {
    assert.equal(Quantity.parse('250m').milliValue(), 250n);
    assert.equal(Quantity.parse('0.1').milliValue(), 100n);
    assert.equal(Quantity.parse('1u').milliValue(), 1n);
    assert.equal(Quantity.parse('100Mi').value(), 104_857_600n);
    assert.equal(Quantity.parse('1.5').value(), 2n);
    assert.equal(Quantity.parse('16Gi').compare(Quantity.parse('17179869184')), 0);
    assert.equal(Quantity.parse('1').compare(Quantity.parse('999m')), 1);
    assert.equal(Quantity.fromMilli(250).toString(), '250m');
    assert.equal(Quantity.fromUnits(100n * 1024n * 1024n, 'BinarySI').toString(), '100Mi');
    assert.equal(JSON.stringify({ cpu: Quantity.parse('0.25') }), '{"cpu":"250m"}');
  });

  it('rejects what Kubernetes rejects', () => {
    for (const bad of ['', 'abc', '1.2.3', '10 Mi', '5MB', 'Mi', '.', '1e', '1ee3', '--1']) {
      assert.throws(() => Quantity.parse(bad), QuantityError, bad);
    }
    assert.throws(() => Quantity.parse('1e40'), /out of range/);
    assert.throws(() => Quantity.parse('100Ei'), /too large/);
  });
});
