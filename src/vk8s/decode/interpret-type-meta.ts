import { goJsonValueKind } from './go-quote.js';
import { isJsonObject } from './type-node.js';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * Reads `apiVersion` and `kind` from a decoded body as kube-apiserver's JSON meta factory
 * does (encoding/json into a two-field struct: keys match case-insensitively, `null` is
 * skipped, the first type error wins), then splits the group/version. Returns the error text
 * kube-apiserver wraps in "the object provided is unrecognized" otherwise.
 */
export function interpretTypeMeta(value: unknown): GroupVersionKind | { readonly error: string } {
  let apiVersion = '';
  let kind = '';
  if (value !== null) {
    if (!isJsonObject(value)) return { error: `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonValueKind(value)} into Go value of type ${FIND_KIND_TYPE}` };
    let typeError: string | undefined;
    for (const [key, item] of Object.entries(value)) {
      const field = key.toLowerCase() === 'apiversion' ? 'apiVersion' : key.toLowerCase() === 'kind' ? 'kind' : undefined;
      if (field === undefined || item === null) continue;
      if (typeof item !== 'string') {
        typeError ??= `json: cannot unmarshal ${goJsonValueKind(item)} into Go struct field .${field} of type string`;
      } else if (field === 'kind') {
        kind = item;
      } else {
        apiVersion = item;
      }
    }
    if (typeError !== undefined) return { error: `couldn't get version/kind; json parse error: ${typeError}` };
  }
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '', kind };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion, kind };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '', kind };
  return { error: `unexpected GroupVersion string: ${apiVersion}` };
}

/** kube's `gvkWithDefaults`: fills the kind, and the group/version where the body leaves them out. */
export function withDefaultGvk(actual: GroupVersionKind, defaults: GroupVersionKind): GroupVersionKind {
  let { group, version } = actual;
  if (version === '' && group === '') {
    group = defaults.group;
    version = defaults.version;
  }
  if (version === '' && group === defaults.group) version = defaults.version;
  return { group, version, kind: actual.kind === '' ? defaults.kind : actual.kind };
}
