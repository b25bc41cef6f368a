import { LineCounter, parseAllDocuments } from 'yaml';
import type { Document, Tags } from 'yaml';
import { setOwn } from './set-own.js';

/** A YAML body that does not convert to JSON; the message reads like go-yaml's (`yaml: line 3: …`). */
export class YamlToJsonError extends Error {
  override readonly name = 'YamlToJsonError';
}

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';
const MAX_ALIAS_COUNT = 1000;

/**
 * Converts a YAML body to the JSON value kube-apiserver's YAML serializer would produce
 * (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1 scalars (`yes`/`on` are booleans, keys too, so
 * `on:` becomes `"true"`; `0777` is octal), merge keys, timestamps kept as strings, only the first document, an empty body is
 * `null`. Throws {@link YamlToJsonError}.
 */
export function yamlToJson(raw: Uint8Array): unknown {
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, {
    version: '1.1',
    merge: true,
    uniqueKeys: false,
    prettyErrors: false,
    lineCounter,
    customTags: (tags: Tags) => tags.filter((tag) => typeof tag === 'string' || tag.tag !== TIMESTAMP_TAG),
  });
  const first = Array.isArray(documents) ? documents[0] : undefined;
  if (first === undefined) return null;
  const error = first.errors[0];
  if (error !== undefined) {
    const { line } = lineCounter.linePos(error.pos[0]);
    throw new YamlToJsonError(`yaml: line ${line}: ${error.message}`);
  }
  return jsonable(documentValue(first));
}

/**
 * The document's value. Aliases are expanded, at most {@link MAX_ALIAS_COUNT} nodes' worth
 * (a "billion laughs" body fails here, not by filling the heap); a document nested too
 * deeply to build fails too, as the parser's own nesting errors do.
 */
function documentValue(document: Document.Parsed): unknown {
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // The yaml library throws ReferenceError for alias expansion beyond the limit, RangeError
    // when the call stack runs out: both are about the body, never the server.
    if (error instanceof ReferenceError || error instanceof RangeError) throw new YamlToJsonError(`yaml: ${error.message}`);
    throw error;
  }
}

/** What json.Marshal makes of the converted value: no NaN or infinities, bytes as text. */
function jsonable(value: unknown): unknown {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new YamlToJsonError(`json: unsupported value: ${Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf'}`);
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(jsonable);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, jsonable(item));
    return out;
  }
  return value;
}

