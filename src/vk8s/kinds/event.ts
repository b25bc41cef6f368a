import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123SubdomainProblems, qualifiedNameProblems } from '../../apimachinery/validation/names.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, resourceOf } from './base-strategy.js';
import { view, type ObjectReference } from './core-types.js';

/**
 * events (core/v1): kube-apiserver 1.17's strategy. Event names are only checked as path
 * segments (ValidateEvent has no name rule); the involved object's namespace must match the
 * event's; events with an `eventTime` (the new style) need the reporting fields. The
 * involvedObject fields, reason, source and type are field-selector fields.
 */
export const eventStrategy = baseStrategy(resourceOf('', 'v1', 'events'), {
  nameRule: 'pathSegment',
  validate: (object, context) => validateEvent(object, context.cluster.namespace),
  validateUpdate: (object, _old, context) => validateEvent(object, context.cluster.namespace),
  selectableFields: (object) => {
    const involved = view<ObjectReference>(object, 'involvedObject');
    const source = view<{ component?: string }>(object, 'source').component ?? '';
    return {
      'involvedObject.kind': involved.kind ?? '',
      'involvedObject.namespace': involved.namespace ?? '',
      'involvedObject.name': involved.name ?? '',
      'involvedObject.uid': involved.uid ?? '',
      'involvedObject.apiVersion': involved.apiVersion ?? '',
      'involvedObject.resourceVersion': involved.resourceVersion ?? '',
      'involvedObject.fieldPath': involved.fieldPath ?? '',
      reason: text(object.reason),
      source: source === '' ? text(object.reportingComponent) : source,
      type: text(object.type),
    };
  },
});

/** kube's limits on the new-style fields. */
const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/**
 * ValidateEvent (1.17), with the platform's one addition: a virtual cluster has one
 * namespace, so events about its cluster-scoped objects (involvedObject.namespace "") live
 * in that namespace (`clusterNamespace`) where kube puts them in "default".
 */
function validateEvent(object: KubeObject, clusterNamespace = 'default'): StatusCause[] {
  const causes: StatusCause[] = [];
  const namespace = object.metadata.namespace ?? '';
  const involvedNamespace = view<ObjectReference>(object, 'involvedObject').namespace ?? '';
  const mismatch = (): StatusCause => fieldError.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  const eventTime = object.eventTime;
  if (eventTime === undefined || eventTime === null || eventTime === '') {
    if (involvedNamespace === '' ? namespace !== '' && namespace !== 'default' && namespace !== clusterNamespace : namespace !== involvedNamespace) causes.push(mismatch());
  } else {
    if (involvedNamespace === '' && namespace !== 'kube-system') causes.push(mismatch());
    const controller = text(object.reportingComponent);
    if (controller === '') causes.push(fieldError.required('reportingController'));
    for (const p of qualifiedNameProblems(controller)) causes.push(fieldError.invalid('reportingController', controller, p));
    const instance = text(object.reportingInstance);
    if (instance === '') causes.push(fieldError.required('reportingInstance'));
    // kube 1.17 misspells this path.
    if (instance.length > REPORTING_INSTANCE_LIMIT) causes.push(fieldError.invalid('repotingIntance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
    causes.push(...limited('action', text(object.action), ACTION_LIMIT, true));
    causes.push(...limited('reason', text(object.reason), REASON_LIMIT, true));
    causes.push(...limited('message', text(object.message), NOTE_LIMIT, false));
  }
  for (const p of dns1123SubdomainProblems(namespace)) causes.push(fieldError.invalid('namespace', namespace, p));
  return causes;
}

function limited(field: string, value: string, limit: number, required: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (required && value === '') causes.push(fieldError.required(field));
  if (value.length > limit) causes.push(fieldError.invalid(field, '', `can have at most ${limit} characters`));
  return causes;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
