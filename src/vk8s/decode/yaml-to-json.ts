import { LineCounter, parseAllDocuments } from 'yaml';
import type { Tags } from 'yaml';
import { setOwn } from './set-own.js';

/** A YAML body that does not convert to JSON; the message reads like go-yaml's (`yaml: line 3: …`). */
export class YamlToJsonError extends Error {
  override readonly name = 'YamlToJsonError';
}

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';

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
  return jsonable(first.toJS({ maxAliasCount: 1000 }));
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

