import { formatSelector, type Requirement } from '../../apimachinery/labels/selector.js';
import type { LabelSelectorView } from './views.js';

const OPERATORS: Readonly<Record<string, Requirement['operator']>> = { In: 'In', NotIn: 'NotIn', Exists: 'Exists', DoesNotExist: 'DoesNotExist' };

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `metav1.LabelSelectorAsSelector(s).String()`: matchLabels as `k=v`, expressions as
 * `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; values sorted, requirements sorted by key, joined
 * by commas. An absent or empty selector gives "". Undefined when the selector is not valid
 * (an unknown operator, values where none are allowed or none where some are needed).
 */
export function labelSelectorText(selector: LabelSelectorView | undefined): string | undefined {
  if (selector === undefined) return '';
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: 'Equals', values: [value] }));
  for (const expression of selector.matchExpressions ?? []) {
    const operator = OPERATORS[expression.operator ?? ''];
    if (operator === undefined) return undefined;
    const values = [...(expression.values ?? [])].sort(byCodeUnits);
    const needsValues = operator === 'In' || operator === 'NotIn';
    if (needsValues !== values.length > 0) return undefined;
    requirements.push({ key: expression.key ?? '', operator, values });
  }
  return formatSelector([...requirements].sort((a, b) => byCodeUnits(a.key, b.key)));
}

/** `metav1.FormatLabelSelector`: the selector text, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: LabelSelectorView | undefined): string {
  const text = labelSelectorText(selector);
  if (text === undefined) return '<error>';
  return text === '' ? '<none>' : text;
}

/** `labels.FormatLabels`: `k=v` pairs sorted by key, `<none>` when there are none. */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const text = Object.keys(labels ?? {})
    .sort(byCodeUnits)
    .map((key) => `${key}=${labels?.[key] ?? ''}`)
    .join(',');
  return text === '' ? '<none>' : text;
}
