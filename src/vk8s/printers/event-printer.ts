import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { column, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { EventView } from './views.js';

const EVENT = 'io.k8s.api.core.v1.Event';

/** `kind/name` with the kind lower-cased, or the kind alone when the object has no name. */
function involvedObject(event: EventView): string {
  const kind = (event.involvedObject?.kind ?? '').toLowerCase();
  const name = event.involvedObject?.name ?? '';
  return name === '' ? kind : `${kind}/${name}`;
}

/** kube's `formatEventSource`: the component, then `, host` when there is a host. */
function sourceText(event: EventView): string {
  const host = event.source?.host ?? '';
  return [event.source?.component ?? '', ...(host === '' ? [] : [host])].join(', ');
}

/**
 * Events (1.17): Last Seen, Type, Reason, Object, wide Subobject and Source, Message (trimmed),
 * wide First Seen, Count, Name. Last/First Seen are ages of `lastTimestamp`/`firstTimestamp`,
 * `<unknown>` when unset (1.17 does not fall back to `eventTime`; that came in 1.18/1.19).
 */
export function eventPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      column('Last Seen', doc(EVENT, 'lastTimestamp')),
      column('Type', doc(EVENT, 'type')),
      column('Reason', doc(EVENT, 'reason')),
      column('Object', doc(EVENT, 'involvedObject')),
      column('Subobject', doc('io.k8s.api.core.v1.ObjectReference', 'fieldPath'), { priority: 1 }),
      column('Source', doc(EVENT, 'source'), { priority: 1 }),
      column('Message', doc(EVENT, 'message')),
      column('First Seen', doc(EVENT, 'firstTimestamp'), { priority: 1 }),
      column('Count', doc(EVENT, 'count'), { priority: 1 }),
      nameColumn(doc, 1),
    ],
    cells(object: KubeObject, now: Date) {
      const event = object as EventView;
      return [
        timestampSince(event.lastTimestamp, now),
        event.type ?? '',
        event.reason ?? '',
        involvedObject(event),
        event.involvedObject?.fieldPath ?? '',
        sourceText(event),
        (event.message ?? '').trim(),
        timestampSince(event.firstTimestamp, now),
        event.count ?? 0,
        event.metadata.name ?? '',
      ];
    },
  };
}
