import { negotiateMediaType } from './media-type-negotiation.js';

export interface TableAccept {
  as: 'Table';
  version: 'v1' | 'v1beta1';
  /** The serializer to write the Table with. */
  mediaType: string;
}

/**
 * Whether an Accept header asks for a Table, decided as kube-apiserver 1.17 negotiates: the
 * first acceptable entry wins, so `application/json;as=Table;v=v1;g=meta.k8s.io` before
 * `application/json` gets a Table and `application/json` first gets plain JSON. Entries the
 * server cannot honour (another group or version, protobuf Tables, `as=` without `g=`) are
 * skipped. Undefined when the answer is not a Table (plain, PartialObjectMetadata, or 406).
 * `serializers` are the media types the server writes, preferred first.
 */
export function parseTableAccept(accept: string | undefined, serializers: readonly string[] = ['application/json']): TableAccept | undefined {
  const negotiated = negotiateMediaType(accept, serializers);
  const convert = negotiated?.convert;
  if (negotiated === undefined || convert === undefined || convert.kind !== 'Table') return undefined;
  return { as: 'Table', version: convert.version === 'v1beta1' ? 'v1beta1' : 'v1', mediaType: negotiated.mediaType };
}
