import fc from 'fast-check';
import { oddString } from './fuzz-values.js';

/** Pieces label and field selectors are made of, so that most fuzzed selectors are nearly valid. */
const SELECTOR_PIECES = ['app', 'a.b/c', 'x', 'metadata.name', 'metadata.namespace', 'status.phase', 'spec.nodeName', 'type', '=', '==', '!=', ',', ' ', '!', 'in', 'notin', '(', ')', 'fixed', 'web', '\\', '\\,', '-', '_', '.', '/', 'Running', 'ä'];

export const selector: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...SELECTOR_PIECES), { maxLength: 8 }).map((parts) => parts.join('')) },
  oddString,
);

const numberish: fc.Arbitrary<string> = fc.oneof(fc.integer({ min: -5, max: 100 }).map(String), fc.constantFrom('', '0', '1', '-1', '1.5', 'abc', '1e3', '9007199254740993', '99999999999999999999', ' 1', '0x10'), oddString);

/** Query parameter values, keyed by name; absent keys are not sent. */
export type Query = Partial<Record<string, string>>;

/** A query made of the named parameters, each present or not, with valid, odd and broken values. */
export function queryOf(values: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<Query> {
  return fc.record(values, { requiredKeys: [] });
}

/** The vK8s API's list, watch and write parameters. */
export const VK8S_QUERY = {
  limit: numberish,
  continue: fc.oneof(oddString, fc.constantFrom('eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0', 'e30', '!!!')),
  resourceVersion: numberish,
  resourceVersionMatch: fc.constantFrom('', 'Exact', 'NotOlderThan', 'x'),
  timeoutSeconds: numberish,
  fieldManager: fc.oneof(fc.constantFrom('fuzz', '', 'kubectl'), oddString),
  dryRun: fc.constantFrom('All', 'all', '', 'None', 'x'),
  labelSelector: selector,
  fieldSelector: selector,
  pretty: fc.constantFrom('true', 'false', '1', 'x'),
  force: fc.constantFrom('true', 'false', 'x'),
  fieldValidation: fc.constantFrom('Strict', 'Warn', 'Ignore', 'x'),
  includeObject: fc.constantFrom('None', 'Metadata', 'Object', 'x'),
  propagationPolicy: fc.constantFrom('Orphan', 'Background', 'Foreground', 'x'),
  gracePeriodSeconds: numberish,
  allowWatchBookmarks: fc.constantFrom('true', 'false', 'x'),
};

/** `?a=1&b=2` (each value URL-encoded), or '' when empty; `extra` pairs come first. */
export function queryString(query: Query, extra: Record<string, string> = {}): string {
  const pairs = [...Object.entries(extra), ...Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined)];
  return pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${encodePart(k)}=${encodePart(v)}`).join('&')}`;
}

/** encodeURIComponent, with lone surrogates (which it refuses) sent as U+FFFD. */
export const encodePart = (text: string): string => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));
