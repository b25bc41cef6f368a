import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import type { KubeObject } from '../../apimachinery/object.js';

/**
 * The per-site status breakdown a workload carries in its `svc.io/site-status` annotation:
 * JSON `{ "<site>": { …counts… } }`, sites in name order so equal breakdowns are equal text.
 */
export function formatSiteStatus<T>(perSite: ReadonlyMap<string, T> | Readonly<Record<string, T>>): string {
  const entries = perSite instanceof Map ? [...(perSite as ReadonlyMap<string, T>).entries()] : Object.entries(perSite as Readonly<Record<string, T>>);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(entries));
}

/** The breakdown an object carries; empty when absent or unreadable (a user may have edited it). */
export function readSiteStatus<T>(object: KubeObject): Record<string, T> {
  const text = object.metadata.annotations?.[SITE_STATUS_ANNOTATION];
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, T>) : {};
  } catch {
    return {};
  }
}

/** `object` with the annotation set to `text` (a copy), or undefined when it already says that. */
export function withSiteStatus(object: KubeObject, text: string): KubeObject | undefined {
  if (object.metadata.annotations?.[SITE_STATUS_ANNOTATION] === text) return undefined;
  return { ...object, metadata: { ...object.metadata, annotations: { ...object.metadata.annotations, [SITE_STATUS_ANNOTATION]: text } } };
}
