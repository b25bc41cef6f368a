/** How object names of a kind are validated (kube-apiserver's per-kind NameFn). */
export type NameRule = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'pathSegment';
