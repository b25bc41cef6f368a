import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { formatSelector, matchesSelector, type Requirement, type Selector } from '../../apimachinery/labels/selector.js';
import { labelValueProblems, qualifiedNameProblems } from '../../apimachinery/validation/names.js';
import type { LabelSelector } from '../../api/pod-spec-types.js';

/** kube's limit on the total size of an object's (or template's) annotations. */
const TOTAL_ANNOTATION_SIZE = 256 * 1024;

/** ValidateLabelName: a qualified name, errors at `field` with the key as value. */
export function validateLabelName(key: string, field: string): StatusCause[] {
  return qualifiedNameProblems(key).map((p) => fieldError.invalid(field, key, p));
}

/** ValidateLabels: every key a qualified name, every value a label value; errors at `field` itself. */
export function validateLabels(labels: Readonly<Record<string, string>> | null | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    causes.push(...validateLabelName(key, field));
    causes.push(...labelValueProblems(value).map((p) => fieldError.invalid(field, value, p)));
  }
  return causes;
}

/** ValidateAnnotations: keys are qualified names (case-insensitive), total size ≤ 256 KiB. */
export function validateAnnotations(annotations: Readonly<Record<string, string>> | null | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    causes.push(...qualifiedNameProblems(key.toLowerCase()).map((p) => fieldError.invalid(field, key, p)));
    total += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE) causes.push(fieldError.tooLong(field, TOTAL_ANNOTATION_SIZE));
  return causes;
}

/** metav1 ValidateLabelSelector: matchLabels syntax and each requirement's operator, values and key. */
export function validateLabelSelector(selector: LabelSelector | null | undefined, field: string): StatusCause[] {
  if (selector == null) return [];
  const causes = validateLabels(selector.matchLabels, `${field}.matchLabels`);
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    const at = `${field}.matchExpressions[${i}]`;
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) causes.push(fieldError.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) causes.push(fieldError.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        causes.push(fieldError.invalid(`${at}.operator`, expression.operator ?? '', 'not a valid selector operator'));
    }
    causes.push(...validateLabelName(expression.key ?? '', `${at}.key`));
  });
  return causes;
}

/**
 * LabelSelectorAsSelector: the requirements a metav1.LabelSelector stands for, sorted by key
 * like kube's selector. An absent selector selects nothing (`'nothing'`), an empty one
 * everything (no requirements); `'invalid'` when a requirement cannot be built.
 */
export function selectorRequirements(selector: LabelSelector | null | undefined): Selector | 'nothing' | 'invalid' {
  if (selector == null) return 'nothing';
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (qualifiedNameProblems(key).length > 0 || labelValueProblems(value).length > 0) return 'invalid';
    requirements.push({ key, operator: 'Equals', values: [value] });
  }
  for (const expression of selector.matchExpressions ?? []) {
    const key = expression.key ?? '';
    const values = expression.values ?? [];
    if (qualifiedNameProblems(key).length > 0 || values.some((v) => labelValueProblems(v).length > 0)) return 'invalid';
    switch (expression.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) return 'invalid';
        requirements.push({ key, operator: expression.operator, values: [...new Set(values)].sort() });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return 'invalid';
        requirements.push({ key, operator: expression.operator, values: [] });
        break;
      default:
        return 'invalid';
    }
  }
  return requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Whether a selector (as converted above) matches a label set; nothing matches `'nothing'`. */
export function selectorMatches(selector: Selector | 'nothing', labels: Readonly<Record<string, string>> | null | undefined): boolean {
  return selector !== 'nothing' && matchesSelector(selector, labels ?? {});
}

/** Whether the selector has neither matchLabels nor matchExpressions. */
export function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0;
}

/** The selector as kube prints it (`app=web,tier in (a,b)`); empty when it cannot be built. */
export function selectorString(selector: LabelSelector | null | undefined): string {
  const requirements = selectorRequirements(selector);
  return typeof requirements === 'string' ? '' : formatSelector(requirements);
}
