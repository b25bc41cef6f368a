import type { KubeObject } from '../apimachinery/object.js';
import { metav1Time } from '../apimachinery/meta-time.js';

export type EventType = 'Normal' | 'Warning';

/** kube's limit on an Event message (longer ones are cut, as client-go's recorder does for notes). */
const MESSAGE_LIMIT = 1024;

/** `<object name>.<unix nanoseconds in hex>`, like client-go's recorder; undefined for an object without a name. */
export function eventName(object: KubeObject, unixNanos: bigint): string | undefined {
  const name = object.metadata.name;
  return name === undefined || name === '' ? undefined : `${name}.${unixNanos.toString(16)}`;
}

/**
 * A core/v1 Event as kube-controller-manager 1.17 writes it (count 1, first and last
 * timestamps equal, no eventTime), with the reporting fields filled from the source.
 * Cluster-scoped objects (Nodes) have an empty involvedObject.namespace; a Node's uid in the
 * reference is its name, as kubelet and the node controller write it (what `kubectl describe
 * node` searches for). Pure.
 */
export function newEvent(input: {
  readonly object: KubeObject;
  readonly name: string;
  readonly namespace: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly component: string;
  readonly host: string;
  readonly now: Date;
}): KubeObject {
  const { object } = input;
  const at = metav1Time(input.now);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: input.name, namespace: input.namespace },
    involvedObject: {
      kind: object.kind,
      namespace: object.metadata.namespace ?? '',
      name: object.metadata.name ?? '',
      uid: object.kind === 'Node' ? (object.metadata.name ?? '') : (object.metadata.uid ?? ''),
      apiVersion: object.apiVersion,
      resourceVersion: object.metadata.resourceVersion ?? '',
    },
    reason: input.reason,
    message: input.message.length > MESSAGE_LIMIT ? input.message.slice(0, MESSAGE_LIMIT - 3) + '...' : input.message,
    source: { component: input.component, host: input.host },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    type: input.type,
    eventTime: null,
    reportingComponent: input.component,
    reportingInstance: input.host,
  };
}
