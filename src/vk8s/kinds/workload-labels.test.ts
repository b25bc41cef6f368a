import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { semanticEqual } from './workload-common.js';
import { goIntOrString, goLabelSelector, goStringMap } from './workload-go-value.js';
import { selectorMatches, selectorRequirements, selectorString, validateAnnotations, validateLabelSelector } from './workload-labels.js';
import { printed } from './workload-test-support.js';

describe('workload labels and selectors', () => {
  it('prints selectors as kube sorts and formats them', () => {
    assert.equal(selectorString({ matchLabels: { tier: 'front', app: 'web' }, matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod', 'dev'] }, { key: 'canary', operator: 'DoesNotExist' }] }), 'app=web,!canary,env notin (dev,prod),tier=front');
    assert.equal(selectorString({}), '');
    assert.equal(selectorString(undefined), '');
  });

  it('matches nothing without a selector and everything with an empty one', () => {
    const nothing = selectorRequirements(undefined);
    const everything = selectorRequirements({});
    assert.equal(nothing, 'nothing');
    assert.ok(everything !== 'invalid' && selectorMatches(everything, {}));
    assert.ok(!selectorMatches(nothing, { app: 'x' }));
    assert.equal(selectorRequirements({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), 'invalid');
  });

  it('validates selector requirements', () => {
    assert.deepEqual(
      printed(
        validateLabelSelector(
          {
            matchLabels: { ok: 'bad value!' },
            matchExpressions: [
              { key: 'a', operator: 'In' },
              { key: 'b', operator: 'Exists', values: ['x'] },
            ],
          },
          'spec.selector',
        ),
      ),
      [
        "spec.selector.matchLabels: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
    );
  });

  it('limits the total annotation size', () => {
    assert.deepEqual(printed(validateAnnotations({ big: 'x'.repeat(256 * 1024) }, 'spec.template.annotations')), ['spec.template.annotations: Too long: must have at most 262144 bytes']);
  });

  it('renders Go values like %#v', () => {
    assert.equal(goStringMap({ b: '2', a: '1' }), 'map[string]string{"a":"1", "b":"2"}');
    assert.equal(goStringMap(undefined), 'map[string]string(nil)');
    assert.equal(goIntOrString(3), 'intstr.IntOrString{Type:0, IntVal:3, StrVal:""}');
    assert.equal(
      goLabelSelector({ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }),
      'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"k", Operator:"In", Values:[]string{"v"}}}}',
    );
  });

  it('compares like Semantic.DeepEqual: empty and absent are equal', () => {
    assert.ok(semanticEqual({ a: [], b: {}, c: null, d: { e: [] } }, {}));
    assert.ok(!semanticEqual({ a: [1] }, { a: [] }));
    assert.ok(!semanticEqual({ a: 'x' }, { a: 'y' }));
  });
});
