import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientNameOf, policyCallerOf } from './client-name.js';
import { evaluatePolicy, type PolicyAction, type PolicyAlgorithm, type PolicyRule, ruleMatches } from './policy-evaluation.js';
import { testPodIdentity } from './testing/pod-identities.js';

const web = policyCallerOf(testPodIdentity());
const worker = policyCallerOf(testPodIdentity({ serviceAccount: 'worker', labels: { app: 'worker', tier: 'backend' } }));
const WEB_NAME = 'spiffe://acme/ns/default/sa/web';

type Predicate = Pick<PolicyRule['spec'], 'client_name' | 'client_name_matcher' | 'client_selector'>;

/** For each kind of predicate: one that selects web (and not worker). */
const MATCHERS: Record<string, Predicate> = {
  client_name: { client_name: WEB_NAME },
  'client_name_matcher exact': { client_name_matcher: { exact_values: ['spiffe://acme/ns/other/sa/x', WEB_NAME], regex_values: [] } },
  'client_name_matcher regex': { client_name_matcher: { exact_values: [], regex_values: ['spiffe://acme/ns/[a-z]+/sa/w.b'] } },
  client_selector: { client_selector: { expressions: ['app in (api)', 'app=web,tier=frontend'] } },
};

function rule(name: string, action: PolicyAction, predicate: Predicate = {}): PolicyRule {
  return { metadata: { name }, spec: { action, ...predicate } };
}

describe('clientNameOf', () => {
  it('is the SPIFFE ID of the pod\'s tenant, namespace and service account ("default" when unset)', () => {
    assert.equal(clientNameOf(testPodIdentity()), WEB_NAME);
    assert.equal(clientNameOf(testPodIdentity({ tenant: 'beta', namespace: 'prod', serviceAccount: '' })), 'spiffe://beta/ns/prod/sa/default');
  });
});

describe('ruleMatches', () => {
  for (const [kind, predicate] of Object.entries(MATCHERS)) {
    it(`${kind} selects the caller it names and not another`, () => {
      assert.equal(ruleMatches(rule('r', 'ALLOW', predicate), web), true);
      assert.equal(ruleMatches(rule('r', 'ALLOW', predicate), worker), false);
    });
  }

  it('a rule without a predicate matches everyone; a matcher without values matches no one', () => {
    assert.equal(ruleMatches(rule('r', 'ALLOW'), worker), true);
    assert.equal(ruleMatches(rule('r', 'ALLOW', { client_name_matcher: {} }), web), false);
  });

  it('regular expressions must match the whole client name', () => {
    assert.equal(ruleMatches(rule('r', 'ALLOW', { client_name_matcher: { regex_values: ['sa/web'] } }), web), false);
    assert.equal(ruleMatches(rule('r', 'ALLOW', { client_name_matcher: { regex_values: ['.*sa/web'] } }), web), true);
    assert.equal(ruleMatches(rule('r', 'ALLOW', { client_name_matcher: { regex_values: ['a|.*'] } }), web), true);
  });

  it('a client_name is compared exactly, not as a pattern', () => {
    assert.equal(ruleMatches(rule('r', 'ALLOW', { client_name: 'spiffe://acme/ns/default/sa/.*' }), web), false);
  });
});

describe('evaluatePolicy', () => {
  const algorithms: PolicyAlgorithm[] = ['FIRST_MATCH', 'DENY_OVERRIDES', 'ALLOW_OVERRIDES'];
  for (const algo of algorithms) {
    for (const [kind, predicate] of Object.entries(MATCHERS)) {
      for (const action of ['ALLOW', 'DENY'] as const) {
        it(`${algo} with a ${action} rule on ${kind}: the matched caller gets ${action}, another caller is denied (no rule matches)`, () => {
          const policy = { algo, rules: [rule('only', action, predicate)] };
          assert.deepEqual(evaluatePolicy(policy, web), { allowed: action === 'ALLOW', rule: 'only' });
          assert.deepEqual(evaluatePolicy(policy, worker), { allowed: false });
        });
      }
    }
  }

  // Both rules match web: the algorithm decides which wins.
  const conflicting = (first: PolicyAction, second: PolicyAction): PolicyRule[] => [rule('first', first, MATCHERS['client_selector']), rule('second', second, MATCHERS['client_name'])];

  it('FIRST_MATCH: the first matching rule wins, whichever its action', () => {
    assert.deepEqual(evaluatePolicy({ algo: 'FIRST_MATCH', rules: conflicting('DENY', 'ALLOW') }, web), { allowed: false, rule: 'first' });
    assert.deepEqual(evaluatePolicy({ algo: 'FIRST_MATCH', rules: conflicting('ALLOW', 'DENY') }, web), { allowed: true, rule: 'first' });
  });

  it('DENY_OVERRIDES: any matching DENY wins over an earlier ALLOW', () => {
    assert.deepEqual(evaluatePolicy({ algo: 'DENY_OVERRIDES', rules: conflicting('ALLOW', 'DENY') }, web), { allowed: false, rule: 'second' });
    assert.deepEqual(evaluatePolicy({ algo: 'DENY_OVERRIDES', rules: conflicting('ALLOW', 'ALLOW') }, web), { allowed: true, rule: 'first' });
  });

  it('ALLOW_OVERRIDES: any matching ALLOW wins over an earlier DENY', () => {
    assert.deepEqual(evaluatePolicy({ algo: 'ALLOW_OVERRIDES', rules: conflicting('DENY', 'ALLOW') }, web), { allowed: true, rule: 'second' });
    assert.deepEqual(evaluatePolicy({ algo: 'ALLOW_OVERRIDES', rules: conflicting('DENY', 'DENY') }, web), { allowed: false, rule: 'first' });
  });

  it('a policy without rules denies everyone', () => {
    for (const algo of algorithms) assert.deepEqual(evaluatePolicy({ algo, rules: [] }, web), { allowed: false });
  });
});
