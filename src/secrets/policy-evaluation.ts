import { matchesSelector, parseSelector } from '../apimachinery/index.js';

export type PolicyAlgorithm = 'FIRST_MATCH' | 'DENY_OVERRIDES' | 'ALLOW_OVERRIDES';
export type PolicyAction = 'ALLOW' | 'DENY';

/** A rule as the secret_policy kind stores it (one predicate at most; none matches everyone). */
export interface PolicyRule {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly action: PolicyAction;
    readonly client_name?: string | null;
    readonly client_name_matcher?: { readonly exact_values?: readonly string[]; readonly regex_values?: readonly string[] } | null;
    readonly client_selector?: { readonly expressions: readonly string[] } | null;
  };
}

export interface SecretPolicySpec {
  readonly algo: PolicyAlgorithm;
  readonly rules: readonly PolicyRule[];
  readonly decrypt_cache_timeout?: string;
}

/** The caller as rules see it: its client name (clientNameOf) and its labels. */
export interface PolicyCaller {
  readonly clientName: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface PolicyDecision {
  readonly allowed: boolean;
  /** The rule that decided, or undefined when none matched (then the answer is deny). */
  readonly rule?: string;
}

/**
 * Pure: does the rule's predicate hold for the caller? `client_name` is an exact comparison;
 * `client_name_matcher` holds when an exact value equals the name or a regular expression
 * matches the whole name (anchored); `client_selector` holds when any expression (Kubernetes
 * label-selector syntax, comma = AND) selects the caller's labels. A rule with no predicate
 * matches every caller; a matcher with no values matches none.
 */
export function ruleMatches(rule: PolicyRule, caller: PolicyCaller): boolean {
  const { client_name: name, client_name_matcher: matcher, client_selector: selector } = rule.spec;
  if (typeof name === 'string') return name === caller.clientName;
  if (matcher !== undefined && matcher !== null) {
    if ((matcher.exact_values ?? []).includes(caller.clientName)) return true;
    return (matcher.regex_values ?? []).some((source) => new RegExp(`^(?:${source})$`, 'u').test(caller.clientName));
  }
  if (selector !== undefined && selector !== null) {
    return selector.expressions.some((expression) => matchesSelector(parseSelector(expression), caller.labels));
  }
  return true;
}

/**
 * Pure: the policy's answer for a caller. FIRST_MATCH: the first matching rule decides.
 * DENY_OVERRIDES: any matching DENY denies, else any matching ALLOW allows. ALLOW_OVERRIDES:
 * any matching ALLOW allows. When no rule matches, the answer is deny.
 */
export function evaluatePolicy(policy: SecretPolicySpec, caller: PolicyCaller): PolicyDecision {
  const matching = policy.rules.filter((rule) => ruleMatches(rule, caller));
  const first = (action?: PolicyAction): PolicyRule | undefined => matching.find((r) => action === undefined || r.spec.action === action);
  let decider: PolicyRule | undefined;
  switch (policy.algo) {
    case 'FIRST_MATCH':
      decider = first();
      break;
    case 'DENY_OVERRIDES':
      decider = first('DENY') ?? first('ALLOW');
      break;
    case 'ALLOW_OVERRIDES':
      decider = first('ALLOW') ?? first('DENY');
      break;
  }
  return decider === undefined ? { allowed: false } : { allowed: decider.spec.action === 'ALLOW', rule: decider.metadata.name };
}
