import { parseSelector, SelectorParseError } from '../../apimachinery/index.js';
import { dns1035LabelProblems } from '../../apimachinery/validation/names.js';
import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

const POLICY_ALGORITHMS = ['FIRST_MATCH', 'DENY_OVERRIDES', 'ALLOW_OVERRIDES'] as const;
const DURATION = '^[0-9]+(s|m|h)$';

const rule = schema.object(
  {
    metadata: schema.object({ name: schema.string({ minLength: 1 }), description: schema.string() }, ['name']),
    spec: schema.object(
      {
        action: schema.enumOf(['ALLOW', 'DENY']),
        client_name: schema.string({ nullable: true, minLength: 1 }),
        client_name_matcher: schema.nullable(
          schema.object({ exact_values: schema.arrayOf(schema.string()), regex_values: schema.arrayOf(schema.string()) }),
        ),
        client_selector: schema.nullable(schema.object({ expressions: schema.arrayOf(schema.string(), { minItems: 1 }) }, ['expressions'])),
      },
      ['action'],
    ),
  },
  ['metadata', 'spec'],
);

interface Rule {
  metadata: { name: string };
  spec: { client_name_matcher?: { regex_values?: string[] }; client_selector?: { expressions: string[] }; [k: string]: unknown };
}

/**
 * Who may have blindfold secrets decrypted: rules matching the caller's identity (from its
 * client certificate) with ALLOW or DENY, combined by the algorithm. A rule without a
 * client predicate matches every caller. The policy id is assigned at create (status).
 */
export const secretPolicy: ConfigKind = {
  kind: 'secret_policy',
  slug: 'secret_management',
  description: 'Rules deciding which workloads may have blindfold secrets decrypted.',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object({
    algo: schema.enumOf(POLICY_ALGORITHMS, 'FIRST_MATCH'),
    rules: schema.arrayOf(rule, { maxItems: 256, default: [] }),
    decrypt_cache_timeout: schema.string({ pattern: DURATION, description: 'How long a sidecar may cache a decrypted value, e.g. "6h" (s, m, h).' }),
  }),
  oneOfs: [],
  validate(spec) {
    const rules = (spec['rules'] as Rule[] | undefined) ?? [];
    const problems: string[] = [];
    const names = new Set<string>();
    rules.forEach((r, i) => {
      const at = `spec.rules[${i}]`;
      for (const p of dns1035LabelProblems(r.metadata.name)) problems.push(`${at}.metadata.name: ${p}`);
      if (names.has(r.metadata.name)) problems.push(`${at}.metadata.name: duplicate rule name "${r.metadata.name}"`);
      names.add(r.metadata.name);
      const predicates = ['client_name', 'client_name_matcher', 'client_selector'].filter((k) => r.spec[k] !== undefined && r.spec[k] !== null);
      if (predicates.length > 1) problems.push(`${at}.spec: only one of client_name, client_name_matcher, client_selector may be set, found ${predicates.join(' and ')}`);
      (r.spec.client_name_matcher?.regex_values ?? []).forEach((source, j) => {
        try {
          new RegExp(source, 'u');
        } catch (error) {
          problems.push(`${at}.spec.client_name_matcher.regex_values[${j}]: does not compile: ${error instanceof Error ? error.message : String(error)}`);
        }
      });
      (r.spec.client_selector?.expressions ?? []).forEach((expression, j) => {
        try {
          parseSelector(expression);
        } catch (error) {
          problems.push(`${at}.spec.client_selector.expressions[${j}]: ${error instanceof SelectorParseError ? error.message : String(error)}`);
        }
      });
    });
    return problems;
  },
  prepareForCreate(spec, context) {
    // A 31-bit policy id, bound into every ciphertext made for this policy.
    const id = (Number.parseInt(context.random().slice(0, 8), 16) & 0x7fffffff) || 1;
    return { spec, status: [{ policy_id: String(id) }] };
  },
};
