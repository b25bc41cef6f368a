import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import type { Selector } from '../../apimachinery/labels/selector.js';
import type { LabelSelector, PodTemplateSpec } from '../../api/pod-spec-types.js';
import { goLabelSelector, goStringMap, invalidRendered } from './workload-go-value.js';
import { isEmptySelector, selectorMatches, selectorRequirements, validateLabelSelector } from './workload-labels.js';

/**
 * The selector rules of the apps/v1 controllers (and Job): the selector is required, valid
 * and non-empty, and must match the template's labels.
 */

export interface SelectorCheck {
  readonly causes: StatusCause[];
  /** The selector to match template labels with; undefined when it could not be built. */
  readonly selector?: Selector | 'nothing';
}

/**
 * `spec.selector` of a Deployment, ReplicaSet or StatefulSet: Required when absent, its syntax,
 * `empty selector is invalid for <kind>`, and `unbuildable` (kube's detail when
 * LabelSelectorAsSelector fails: `invalid label selector` for Deployment/ReplicaSet, empty for
 * StatefulSet).
 */
export function checkAppsSelector(selector: LabelSelector | null | undefined, emptyKind: string, unbuildable: string): SelectorCheck {
  const field = 'spec.selector';
  const causes: StatusCause[] = [];
  if (selector == null) {
    causes.push(fieldError.required(field));
  } else {
    causes.push(...validateLabelSelector(selector, field));
    if (isEmptySelector(selector)) causes.push(invalidRendered(field, goLabelSelector(selector), `empty selector is invalid for ${emptyKind}`));
  }
  const requirements = selectorRequirements(selector);
  if (requirements === 'invalid') {
    causes.push(invalidRendered(field, goLabelSelector(selector), unbuildable));
    return { causes };
  }
  return { causes, selector: requirements };
}

/**
 * `<field>.metadata.labels: Invalid value: map[string]string{…}: \`selector\` does not match
 * template \`labels\`` — skipped for an empty selector (which matches everything), reported
 * for an absent one (which matches nothing).
 */
export function checkTemplateLabels(selector: Selector | 'nothing', template: PodTemplateSpec | undefined, field: string): StatusCause[] {
  if (selector !== 'nothing' && selector.length === 0) return [];
  const labels = template?.metadata?.labels;
  if (selectorMatches(selector, labels)) return [];
  return [invalidRendered(`${field}.metadata.labels`, goStringMap(labels), '`selector` does not match template `labels`')];
}
