/**
 * kube-apiserver 1.17's response media type negotiation (apiserver `negotiation` over
 * goautoneg's Accept parser), for GET/LIST/WATCH of built-in resources. Pure.
 */
export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Record<string, string>;
}

/** Go `strconv.ParseFloat(s, 32)`, 0 when it is not a number (goautoneg ignores the error). */
function parseQ(text: string): number {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Math.fround(Number(text));
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  return 0;
}

/** goautoneg's ordering: higher q first, then concrete types and subtypes before wildcards. */
function less(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  if (a.subType !== '*' && b.subType === '*') return true;
  return false;
}

/**
 * goautoneg.ParseAccept: comma-separated ranges, `;`-separated parameters (`q` apart),
 * malformed ranges dropped, then sorted with goautoneg's comparison (Go's insertion sort for
 * short lists, which keeps equal clauses in header order).
 */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const rawPart of header.split(',')) {
    const [range = '', ...params] = rawPart.replace(/^ +| +$/g, '').split(';');
    const sp = range.split('/');
    const type = (sp[0] ?? '').replace(/^ +| +$/g, '');
    let subType: string;
    if (sp.length === 1 && type === '*') subType = '*';
    else if (sp.length === 2) subType = (sp[1] ?? '').replace(/^ +| +$/g, '');
    else continue;
    const clause: AcceptClause = { type, subType, q: 1, params: {} };
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq === -1) continue;
      const token = param.slice(0, eq).replace(/^ +| +$/g, '');
      const value = param.slice(eq + 1);
      if (token === 'q') clause.q = parseQ(value);
      else clause.params[token] = value.replace(/^ +| +$/g, '');
    }
    clauses.push(clause);
  }
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j] as AcceptClause, clauses[j - 1] as AcceptClause); j--) {
      [clauses[j - 1], clauses[j]] = [clauses[j] as AcceptClause, clauses[j - 1] as AcceptClause];
    }
  }
  return clauses;
}

export interface Negotiated {
  /** The serializer chosen, e.g. `application/json`. */
  mediaType: string;
  /** The transformation asked for with `as`/`g`/`v` (Table, PartialObjectMetadata[List]). */
  convert?: { group: string; version: string; kind: string };
  /** `stream=watch`. */
  stream?: string;
  pretty: boolean;
}

const META_GROUP = 'meta.k8s.io';

/** `RequestScope.AllowsMediaTypeTransform` of 1.17 for a built-in resource with a Table convertor. */
function allowsTransform(mediaType: string, convert: Negotiated['convert']): boolean {
  if (convert === undefined) return true;
  if (convert.group !== META_GROUP || (convert.version !== 'v1' && convert.version !== 'v1beta1')) return false;
  switch (convert.kind) {
    case 'Table':
      return mediaType === 'application/json' || mediaType === 'application/yaml';
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return true;
    default:
      return false;
  }
}

/** `acceptMediaTypeOptions`: the clause's parameters against one serializer, undefined when refused. */
function accept(params: Record<string, string>, mediaType: string): Negotiated | undefined {
  let convert: Negotiated['convert'];
  let stream: string | undefined;
  let pretty = false;
  const conversion = (): NonNullable<Negotiated['convert']> => (convert ??= { group: '', version: '', kind: '' });
  for (const [key, value] of Object.entries(params)) {
    if (key === 'as') conversion().kind = value;
    else if (key === 'g') conversion().group = value;
    else if (key === 'v') conversion().version = value;
    else if (key === 'stream') {
      // Only json and protobuf have a stream serializer, and "watch" is the only schema.
      if (value !== '' && (mediaType === 'application/yaml' || value !== 'watch')) return undefined;
      stream = value;
    } else if (key === 'sv') {
      if (value !== '' && value !== 'v1') return undefined;
    } else if (key === 'pretty') pretty = value === '1';
  }
  if (!allowsTransform(mediaType, convert)) return undefined;
  return { mediaType, ...(convert === undefined ? {} : { convert }), ...(stream === undefined ? {} : { stream }), pretty };
}

/**
 * `negotiation.NegotiateOutputMediaType`: the first clause (in goautoneg order) that one of
 * `serializers` (in preference order, e.g. `['application/json']`) matches — exactly,
 * `type/*` or `*\/*` — and whose parameters it accepts. An empty header takes the first
 * serializer. Undefined means nothing is acceptable (kube answers 406).
 */
export function negotiateMediaType(header: string | undefined, serializers: readonly string[]): Negotiated | undefined {
  if (header === undefined || header === '') return serializers[0] === undefined ? undefined : { mediaType: serializers[0], pretty: false };
  for (const clause of parseAccept(header)) {
    for (const mediaType of serializers) {
      const [type, subType] = mediaType.split('/');
      const matches = (clause.type === type && (clause.subType === subType || clause.subType === '*')) || (clause.type === '*' && clause.subType === '*');
      if (!matches) continue;
      const negotiated = accept(clause.params, mediaType);
      if (negotiated !== undefined) return negotiated;
    }
  }
  return undefined;
}
