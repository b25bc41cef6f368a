import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { SITES_ANNOTATION, VIRTUAL_SITES_ANNOTATION } from '../../site-api/site-model.js';
import { HTTP2_ENABLE_ANNOTATION, HTTP2_VALUES, parseSniNames, PROXY_TYPE_ANNOTATION, PROXY_TYPES, SNI_NAMES_ANNOTATION } from '../../api/service-annotations.js';
import { parseRefList } from './placement-annotations.js';
import { OFFLINE_EVICTION_ANNOTATION, parseOfflineEviction } from '../controller-kit/offline-eviction.js';

const REF_LIST_FORM = 'must be namespace/name or a comma-separated list of them, each part a DNS label (e.g. "system/edge-1")';

/**
 * Checks the seed's annotations whose values have a fixed form, so that a typo is refused
 * at admission (422) instead of acting: `svc.io/sites` and `svc.io/virtual-sites` on any
 * object must be lists of `namespace/name` references (a malformed value used to place the
 * workload on no site at all, deleting its running pods); on a Service, `svc.io/proxy-type`
 * is one of the seed's three proxy types, `svc.io/http2-enable` is "true" or "false", and
 * `svc.io/sni-names` (the platform's extra SNI names) a list of DNS names; on any object,
 * `svc.io/offline-eviction-seconds` is a whole number of seconds. On
 * update, a value unchanged from `old` is not checked again, so objects stored before the
 * check stay updatable. Returns kube field causes. Pure.
 */
export function validateSeedAnnotations(object: KubeObject, old?: KubeObject): StatusCause[] {
  const annotations = object.metadata.annotations ?? {};
  const before = old?.metadata.annotations ?? {};
  const changed = (key: string): string | undefined => (annotations[key] !== undefined && annotations[key] !== before[key] ? annotations[key] : undefined);
  const causes: StatusCause[] = [];
  for (const key of [SITES_ANNOTATION, VIRTUAL_SITES_ANNOTATION]) {
    const value = changed(key);
    if (value !== undefined && parseRefList(key, value).problems.length > 0) causes.push(fieldError.invalid(`metadata.annotations[${key}]`, value, REF_LIST_FORM));
  }
  const eviction = changed(OFFLINE_EVICTION_ANNOTATION);
  const evictionParsed = eviction === undefined ? undefined : parseOfflineEviction(eviction);
  if (evictionParsed !== undefined && 'problem' in evictionParsed) causes.push(fieldError.invalid(`metadata.annotations[${OFFLINE_EVICTION_ANNOTATION}]`, eviction, evictionParsed.problem));
  if (object.kind === 'Service') {
    const proxyType = changed(PROXY_TYPE_ANNOTATION);
    if (proxyType !== undefined && !(PROXY_TYPES as readonly string[]).includes(proxyType)) causes.push(fieldError.notSupported(`metadata.annotations[${PROXY_TYPE_ANNOTATION}]`, proxyType, PROXY_TYPES));
    const http2 = changed(HTTP2_ENABLE_ANNOTATION);
    if (http2 !== undefined && !(HTTP2_VALUES as readonly string[]).includes(http2)) causes.push(fieldError.notSupported(`metadata.annotations[${HTTP2_ENABLE_ANNOTATION}]`, http2, HTTP2_VALUES));
    const sniNames = changed(SNI_NAMES_ANNOTATION);
    const parsed = sniNames === undefined ? undefined : parseSniNames(sniNames);
    if (parsed !== undefined && 'problem' in parsed) causes.push(fieldError.invalid(`metadata.annotations[${SNI_NAMES_ANNOTATION}]`, sniNames, parsed.problem));
  }
  return causes;
}
