import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123LabelProblems, dns1123SubdomainProblems, labelValueProblems } from '../../apimachinery/validation/names.js';
import { goNilPointer, goScalar, goString, goStruct, invalidRendered } from './workload-go-value.js';
import { validateLabelName, validateLabelSelector } from './workload-labels.js';
import { asRecord, type Toleration } from '../../api/pod-spec-types.js';

/** Where a pod may run: tolerations and affinity (core validation, 1.17). */

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function goToleration(t: Toleration): string {
  return goStruct('core.Toleration', [
    ['Key', goString(t.key ?? '')],
    ['Operator', goString(t.operator ?? '')],
    ['Value', goString(t.value ?? '')],
    ['Effect', goString(t.effect ?? '')],
    ['TolerationSeconds', t.tolerationSeconds == null ? goNilPointer('int64') : '(*int64)(0xc000000000)'],
  ]);
}

/** ValidateTolerations. */
export function validateTolerations(tolerations: readonly Toleration[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  tolerations.forEach((t, i) => {
    const at = `${field}[${i}]`;
    const key = t.key ?? '';
    const operator = t.operator ?? '';
    const effect = t.effect ?? '';
    if (key !== '') causes.push(...validateLabelName(key, `${at}.key`));
    if (key === '' && operator !== 'Exists') {
      causes.push(fieldError.invalid(`${at}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds != null && effect !== 'NoExecute') causes.push(fieldError.invalid(`${at}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    switch (operator) {
      case 'Equal':
      case '': {
        const problems = labelValueProblems(t.value ?? '');
        if (problems.length > 0) causes.push(fieldError.invalid(`${at}.operator`, t.value ?? '', problems.join(';')));
        break;
      }
      case 'Exists':
        if ((t.value ?? '') !== '') causes.push(invalidRendered(`${at}.operator`, goToleration(t), "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        causes.push(fieldError.notSupported(`${at}.operator`, operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !EFFECTS.includes(effect)) causes.push(fieldError.notSupported(`${at}.effect`, effect, EFFECTS));
  });
  return causes;
}

interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

function validateNodeSelectorRequirement(r: NodeSelectorRequirement, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) causes.push(fieldError.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) causes.push(fieldError.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) causes.push(fieldError.required(`${at}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      causes.push(fieldError.invalid(`${at}.operator`, r.operator ?? '', 'not a valid selector operator'));
  }
  return [...causes, ...validateLabelName(r.key ?? '', `${at}.key`)];
}

function validateNodeFieldRequirement(r: NodeSelectorRequirement, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = r.values ?? [];
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length !== 1) causes.push(fieldError.required(`${at}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    causes.push(fieldError.invalid(`${at}.operator`, r.operator ?? '', 'not a valid selector operator'));
  }
  if (r.key !== 'metadata.name') causes.push(fieldError.invalid(`${at}.key`, r.key ?? '', 'not a valid field selector key'));
  else values.forEach((v, i) => causes.push(...dns1123SubdomainProblems(v).map((p) => fieldError.invalid(`${at}.values[${i}]`, v, p))));
  return causes;
}

interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[] | null;
  matchFields?: NodeSelectorRequirement[] | null;
}

function validateNodeSelectorTerm(term: NodeSelectorTerm | undefined, at: string): StatusCause[] {
  return [
    ...(term?.matchExpressions ?? []).flatMap((r, i) => validateNodeSelectorRequirement(r, `${at}.matchExpressions[${i}]`)),
    ...(term?.matchFields ?? []).flatMap((r, i) => validateNodeFieldRequirement(r, `${at}.matchFields[${i}]`)),
  ];
}

const weightProblem = (weight: unknown, at: string): StatusCause[] =>
  typeof weight === 'number' && weight > 0 && weight <= 100 ? [] : [invalidRendered(`${at}.weight`, goScalar(typeof weight === 'number' ? weight : 0), 'must be in the range 1-100')];

interface PodAffinityTerm {
  labelSelector?: Parameters<typeof validateLabelSelector>[0];
  namespaces?: string[] | null;
  topologyKey?: string;
}

function validatePodAffinityTerm(term: PodAffinityTerm | undefined, at: string): StatusCause[] {
  const causes = validateLabelSelector(term?.labelSelector, `${at}.matchExpressions`);
  for (const namespace of term?.namespaces ?? []) causes.push(...dns1123LabelProblems(namespace).map((p) => fieldError.invalid(`${at}.namespace`, namespace, p)));
  const topologyKey = term?.topologyKey ?? '';
  if (topologyKey === '') causes.push(fieldError.required(`${at}.topologyKey`, 'can not be empty'));
  return [...causes, ...validateLabelName(topologyKey, `${at}.topologyKey`)];
}

function validatePodAffinity(affinity: Record<string, unknown>, at: string): StatusCause[] {
  const required = (affinity.requiredDuringSchedulingIgnoredDuringExecution ?? []) as PodAffinityTerm[];
  const preferred = (affinity.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Array<{ weight?: number; podAffinityTerm?: PodAffinityTerm }>;
  return [
    ...required.flatMap((t, i) => validatePodAffinityTerm(t, `${at}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)),
    ...preferred.flatMap((t, i) => {
      const termAt = `${at}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      return [...weightProblem(t.weight, termAt), ...validatePodAffinityTerm(t.podAffinityTerm, `${termAt}.podAffinityTerm`)];
    }),
  ];
}

/** validateAffinity: node affinity terms, pod (anti-)affinity terms. */
export function validateAffinity(affinity: Record<string, unknown> | undefined, field: string): StatusCause[] {
  if (affinity == null) return [];
  const causes: StatusCause[] = [];
  const node = asRecord(affinity.nodeAffinity);
  if (node != null) {
    const at = `${field}.nodeAffinity`;
    const required = asRecord(node.requiredDuringSchedulingIgnoredDuringExecution);
    if (required != null) {
      const terms = (required.nodeSelectorTerms ?? []) as NodeSelectorTerm[];
      const termsAt = `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      if (terms.length === 0) causes.push(fieldError.required(termsAt, 'must have at least one node selector term'));
      terms.forEach((term, i) => causes.push(...validateNodeSelectorTerm(term, `${termsAt}[${i}]`)));
    }
    const preferred = (node.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Array<{ weight?: number; preference?: NodeSelectorTerm }>;
    preferred.forEach((term, i) => {
      const termAt = `${at}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      causes.push(...weightProblem(term.weight, termAt), ...validateNodeSelectorTerm(term.preference, `${termAt}.preference`));
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const pod = asRecord(affinity[kind]);
    if (pod != null) causes.push(...validatePodAffinity(pod, `${field}.${kind}`));
  }
  return causes;
}
