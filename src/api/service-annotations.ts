import type { KubeObject } from '../apimachinery/object.js';

/**
 * The seed's Service annotations that choose how a site's proxy carries a Service, and the
 * platform's own `svc.io/sni-names`. Pure; admission refuses values outside these sets, the
 * site agent reads them to build its proxy (src/site-agent/service-proxy/).
 */

/** `svc.io/proxy-type`: the proxy type of the Service's internal virtual host on each site. */
export const PROXY_TYPE_ANNOTATION = 'svc.io/proxy-type';
export const PROXY_TYPES = ['HTTP_PROXY', 'TCP_PROXY', 'TCP_PROXY_WITH_SNI'] as const;
export type ProxyType = (typeof PROXY_TYPES)[number];
/** The seed's default for vK8s Services. */
const DEFAULT_PROXY_TYPE: ProxyType = 'TCP_PROXY';

/** `svc.io/http2-enable`: "true" makes upstream connections HTTP/2 (h2c); "false" (default) keeps HTTP/1.1. */
export const HTTP2_ENABLE_ANNOTATION = 'svc.io/http2-enable';
export const HTTP2_VALUES = ['true', 'false'] as const;

/**
 * `svc.io/sni-names`: for a `TCP_PROXY_WITH_SNI` Service, the server names it answers for
 * beyond `<service>`, `<service>.<namespace>` and `<service>.<namespace>.svc.cluster.local`:
 * a comma-separated list of DNS names (lowercase RFC 1123 subdomains, no wildcard), at most
 * {@link MAX_SNI_NAMES}.
 */
export const SNI_NAMES_ANNOTATION = 'svc.io/sni-names';
const MAX_SNI_NAMES = 32;
const SNI_NAMES_FORM = `must be a comma-separated list of at most ${MAX_SNI_NAMES} DNS names (lowercase RFC 1123 subdomains such as "api.example.com", no "*")`;

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The names of a `svc.io/sni-names` value, or the reason it is malformed. */
export function parseSniNames(value: string): { readonly names: readonly string[] } | { readonly problem: string } {
  const names = value.split(',').map((part) => part.trim());
  if (names.length > MAX_SNI_NAMES) return { problem: `${names.length} names; ${SNI_NAMES_FORM}` };
  for (const name of names) {
    if (name === '') return { problem: `an empty name; ${SNI_NAMES_FORM}` };
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name) || name.split('.').some((label) => label.length > 63)) return { problem: `"${name}" is not a DNS name; ${SNI_NAMES_FORM}` };
  }
  return { names: [...new Set(names)] };
}

const annotationsOf = (service: KubeObject): Readonly<Record<string, string>> => service.metadata.annotations ?? {};

/** The Service's proxy type: its annotation when it is one of the seed's, else the default `TCP_PROXY`. */
export function proxyTypeOf(service: KubeObject): ProxyType {
  const value = annotationsOf(service)[PROXY_TYPE_ANNOTATION];
  return (PROXY_TYPES as readonly string[]).includes(value ?? '') ? (value as ProxyType) : DEFAULT_PROXY_TYPE;
}

/** Whether upstream connections are HTTP/2: only `svc.io/http2-enable: "true"`. */
export function http2EnabledOf(service: KubeObject): boolean {
  return annotationsOf(service)[HTTP2_ENABLE_ANNOTATION] === 'true';
}

/** The extra SNI names of the Service (none when the annotation is absent or malformed: admission refuses those). */
export function sniNamesOf(service: KubeObject): readonly string[] {
  const value = annotationsOf(service)[SNI_NAMES_ANNOTATION];
  if (value === undefined) return [];
  const parsed = parseSniNames(value);
  return 'names' in parsed ? parsed.names : [];
}
