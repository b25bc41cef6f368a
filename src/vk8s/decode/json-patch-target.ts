import jsonpatch from 'fast-json-patch';
import { isJsonObject } from './type-node.js';

/**
 * Where a JSON patch path points, resolved as evanphx/json-patch v4.2.0 (kube-apiserver 1.17)
 * resolves it, with that library's container operations and their error texts. Mutations go
 * through fast-json-patch on canonical pointers. Functions return an error text or undefined.
 */
export class JsonPatchTarget {
  private constructor(
    private readonly document: unknown,
    /** The object or array holding the target. */
    private readonly container: Record<string, unknown> | unknown[],
    /** The canonical JSON pointer of `container`. */
    private readonly pointer: string,
    /** The last path segment, unescaped. */
    readonly key: string,
  ) {}

  /**
   * evanphx's `findObject`: split on `/`, the first segment ignored (so `a/b` means `/b`),
   * every middle segment must name an existing object or array; undefined otherwise (also for
   * the root path `""`, which v4.2.0 cannot address).
   */
  static find(document: unknown, path: string): JsonPatchTarget | undefined {
    const split = path.split('/');
    if (split.length < 2 || !isContainer(document)) return undefined;
    let container: Record<string, unknown> | unknown[] = document;
    let pointer = '';
    for (const part of split.slice(1, -1)) {
      const key = unescapeKey(part);
      const next = child(container, key);
      if (!isContainer(next)) return undefined;
      container = next;
      pointer += `/${jsonpatch.escapePathComponent(key)}`;
    }
    return new JsonPatchTarget(document, container, pointer, unescapeKey(split[split.length - 1] ?? ''));
  }

  private at(key: string | number): string {
    return `${this.pointer}/${typeof key === 'number' ? key : jsonpatch.escapePathComponent(key)}`;
  }

  private apply(operation: { op: 'add' | 'remove' | 'replace'; path: string; value?: unknown }): undefined {
    jsonpatch.applyOperation(this.document, operation as jsonpatch.Operation, false, true, true);
    return undefined;
  }

  /** The value at the key (`undefined` when an object has no such key), or an error text. */
  get(): { value: unknown } | { error: string } {
    if (!Array.isArray(this.container)) return { value: Object.hasOwn(this.container, this.key) ? this.container[this.key] : undefined };
    const index = atoi(this.key);
    if (typeof index === 'string') return { error: index };
    if (index >= this.container.length || index < 0) return { error: `Unable to access invalid index: ${index}` };
    return { value: this.container[index] };
  }

  /** The `add` operation: objects set the key; arrays insert (`-` appends, negative counts from the end). */
  add(value: unknown): string | undefined {
    if (!Array.isArray(this.container)) return this.apply({ op: 'add', path: this.at(this.key), value });
    if (this.key === '-') return this.apply({ op: 'add', path: this.at('-'), value });
    const size = this.container.length + 1;
    let index = atoi(this.key);
    if (typeof index === 'string') return index;
    if (index >= size || index < -size) return `Unable to access invalid index: ${index}`;
    if (index < 0) index += size;
    return this.apply({ op: 'add', path: this.at(index), value });
  }

  /** The `remove` operation. */
  remove(): string | undefined {
    if (!Array.isArray(this.container)) {
      if (!Object.hasOwn(this.container, this.key)) return `Unable to remove nonexistent key: ${this.key}`;
      return this.apply({ op: 'remove', path: this.at(this.key) });
    }
    let index = atoi(this.key);
    if (typeof index === 'string') return index;
    const length = this.container.length;
    if (index >= length || index < -length) return `Unable to access invalid index: ${index}`;
    if (index < 0) index += length;
    return this.apply({ op: 'remove', path: this.at(index) });
  }

  /** The `replace` operation: an object key need not exist (v4.2.0 only checks arrays). */
  replace(value: unknown, path: string): string | undefined {
    if (!Array.isArray(this.container)) return this.apply({ op: 'add', path: this.at(this.key), value });
    const index = atoi(this.key);
    if (typeof index === 'string' || index < 0 || index >= this.container.length) return `jsonpatch replace operation does not apply: doc is missing key: ${path}`;
    return this.apply({ op: 'replace', path: this.at(index), value });
  }

  /** What `move` and `copy` write with: objects set; arrays overwrite the index (padding with null) or append for `-`. */
  set(value: unknown): string | undefined {
    if (!Array.isArray(this.container)) return this.apply({ op: 'add', path: this.at(this.key), value });
    if (this.key === '-') return this.apply({ op: 'add', path: this.at('-'), value });
    const index = atoi(this.key);
    if (typeof index === 'string') return index;
    if (index < 0) return `Unable to access invalid index: ${index}`;
    while (this.container.length < index) this.container.push(null);
    return this.apply({ op: index === this.container.length ? 'add' : 'replace', path: this.at(index), value });
  }
}

/** RFC 6901 unescaping as Go's `strings.NewReplacer("~1", "/", "~0", "~")` does it. */
function unescapeKey(key: string): string {
  return key.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return Array.isArray(value) || isJsonObject(value);
}

function child(container: Record<string, unknown> | unknown[], key: string): unknown {
  if (!Array.isArray(container)) return Object.hasOwn(container, key) ? container[key] : undefined;
  const index = atoi(key);
  return typeof index === 'number' && index >= 0 && index < container.length ? container[index] : undefined;
}

const MAX_INT64 = 2n ** 63n - 1n;

/** Go's strconv.Atoi: the integer, or its error text. */
function atoi(text: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(text)) return `strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
  const value = BigInt(text);
  if (value > MAX_INT64 || value < -MAX_INT64 - 1n) return `strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`;
  return Number(value);
}
