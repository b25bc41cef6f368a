import type { KubeObject, ObjectMeta } from '../../../apimachinery/object.js';
import type { FieldDoc } from '../table-printer.js';
import { metav1Time } from '../../../apimachinery/meta-time.js';

/** The clock of the printer tests. */
export const NOW = new Date('2020-06-01T12:00:00Z');

/** A timestamp `ms` before {@link NOW}. */
export function ago(ms: number): string {
  return metav1Time(NOW.getTime() - ms);
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Metadata as the server stores it: name, namespace, uid, resourceVersion, creationTimestamp `age` ago. */
export function meta(name: string, age: number, extra: Partial<ObjectMeta> = {}): ObjectMeta {
  return { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '42', creationTimestamp: ago(age), ...extra };
}

export function object(apiVersion: string, kind: string, metadata: ObjectMeta, body: Record<string, unknown>): KubeObject {
  return { apiVersion, kind, metadata, ...body };
}

/** Field docs that name the field, so tests can see which field a column documents. */
export const namedDoc: FieldDoc = (definition, field) => `${definition.split('.').slice(-1)[0] ?? ''}.${field}`;
