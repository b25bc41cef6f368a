import type { KeyValue, WatchEvent } from '../store/types.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ValueTransformer } from '../common/envelope-encryption.js';
import { chunkBody, frameChunk } from './chunk-framing.js';

/** The event types whose object is a stored object. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * Objects are stored as JSON without `metadata.resourceVersion`: the store's modRevision
 * is the resourceVersion, set when an object is read (as kube-apiserver's etcd3 store does).
 * {@link decode} memoizes per KeyValue, so the readers that keep the watch cache's objects
 * (informers, lists from the cache) parse each stored value once; those objects are shared
 * and must be treated as read-only. A KeyValue read once from the store goes through
 * {@link decodeOnce}: an entry in the memo's WeakMap would keep a short-lived object graph
 * alive through young-generation collections, which costs more than the parse it could save.
 *
 * A watch event goes to every watch of its resource: {@link eventLine} and {@link eventChunk}
 * encode it once for all of them, from the object {@link decodeChange} memoizes with the
 * cache's event (not with the stored value, so it leaves memory with the event). An event
 * made from one of the watch cache's events is remembered with that event (like
 * kube-apiserver's caching of serializations on its watch cache's events), so for as long as
 * the cache or a fan-out in progress holds the event, however many events the fan-out is
 * behind; a synthetic one (a watch's initial state) with its shared object, among the
 * `lineMemo` most recent ones.
 *
 * A codec given a `transformer` (Secrets': envelope encryption under the KEK) stores every
 * value through it, bound to the object's store key, and reads every value back through it;
 * the memos hold the decoded objects, so a value the watch cache keeps is decrypted once.
 * Every other resource's codec has none and pays nothing.
 */
export class ObjectCodec {
  private readonly decoded = new WeakMap<KeyValue, KubeObject>();
  private readonly deleted = new WeakMap<KeyValue, KubeObject>();
  /** The objects of watch cache events' new values, by event (see {@link decodeChange}). */
  private readonly changes = new WeakMap<WatchEvent, KubeObject>();
  /** The objects of watch cache events' previous values, by event. */
  private readonly befores = new WeakMap<WatchEvent, KubeObject>();
  /** The JSON answers of the stored values the watch cache holds. */
  private readonly texts = new WeakMap<KeyValue, Buffer>();
  /** Objects this codec handed out as shared (read-only): only those have their JSON remembered. */
  private readonly shared = new WeakSet<KubeObject>();
  /** Watch lines of the watch cache's events, by the cache's event they were made from. */
  private readonly eventLines = new WeakMap<WatchEvent, Partial<Record<WatchEventType, EncodedLine>>>();
  /** Watch lines of recently written shared objects, oldest first (a Map keeps insertion order). */
  private readonly lines = new Map<KubeObject, Partial<Record<WatchEventType, EncodedLine>>>();
  private readonly lineMemo: number;
  /** The last group of chunks joined, and the result. */
  private lastJoin: { readonly parts: readonly Buffer[]; readonly joined: Buffer } | undefined;

  private readonly transformer: ValueTransformer | undefined;

  constructor(options: { readonly lineMemo?: number; readonly transformer?: ValueTransformer } = {}) {
    this.lineMemo = options.lineMemo ?? 1024;
    this.transformer = options.transformer;
  }

  /** The object a stored value holds (its plaintext when the codec encrypts), without a resourceVersion. */
  private parse(kv: KeyValue): KubeObject {
    return JSON.parse(this.transformer === undefined ? kv.value : this.transformer.fromStorage(kv.value, kv.key)) as KubeObject;
  }

  /** The shared, read-only object of a KeyValue the watch cache holds (memoized). */
  decode(kv: KeyValue): KubeObject {
    let object = this.decoded.get(kv);
    if (object === undefined) {
      object = this.parse(kv);
      object.metadata.resourceVersion = String(kv.modRevision);
      this.decoded.set(kv, object);
      this.shared.add(object);
    }
    return object;
  }

  /**
   * For a reader that keeps a few fields of every object and drops the rest (the garbage
   * collector's graph): the shared object when one is memoized already, else a fresh one that
   * is not memoized. A memoized decoding lives as long as its KeyValue in the watch cache;
   * every object of every resource kept decoded that way would double the cache's live heap
   * (and the work of each major GC) for objects no watch or informer asks for.
   */
  decodeTransient(kv: KeyValue): KubeObject {
    return this.decoded.get(kv) ?? this.decodeOnce(kv);
  }

  /**
   * The shared, read-only object of a watch cache event's new value, for every watch the event
   * reaches. Memoized with the event, which leaves the cache's window of recent events, rather
   * than with the stored value, which the cache keeps as long as the object lives: an object
   * decoded only to reach the watches (the lines are built once per event) does not stay in
   * the live heap. The stored value's memoized object when there is one already.
   */
  decodeChange(event: WatchEvent & { readonly kv: KeyValue }): KubeObject {
    return this.decoded.get(event.kv) ?? this.memoizedWith(this.changes, event, event.kv);
  }

  /** {@link decodeChange} of a MODIFIED event's previous value (a watch's selector matched it before?). */
  decodeBefore(event: WatchEvent & { readonly type: 'MODIFIED' }): KubeObject {
    return this.decoded.get(event.prev) ?? this.memoizedWith(this.befores, event, event.prev);
  }

  private memoizedWith(memo: WeakMap<WatchEvent, KubeObject>, event: WatchEvent, kv: KeyValue): KubeObject {
    let object = memo.get(event);
    if (object === undefined) {
      object = this.decodeOnce(kv);
      memo.set(event, object);
      this.shared.add(object);
    }
    return object;
  }

  /** A fresh object for a KeyValue read once (not memoized; the caller owns it). */
  decodeOnce(kv: KeyValue): KubeObject {
    const object = this.parse(kv);
    object.metadata.resourceVersion = String(kv.modRevision);
    return object;
  }

  /**
   * The deleted object as a watch's DELETED event carries it: at the deletion's revision.
   * Shared and read-only like {@link decode}'s (memoized per deleted KeyValue).
   */
  decodeDeleted(prev: KeyValue, revision: number): KubeObject {
    const memo = this.deleted.get(prev);
    if (memo !== undefined && memo.metadata.resourceVersion === String(revision)) return memo;
    const object = this.parse(prev);
    object.metadata.resourceVersion = String(revision);
    if (memo === undefined) {
      this.deleted.set(prev, object);
      this.shared.add(object);
    }
    return object;
  }

  /**
   * One line of a watch stream, `{"type":…,"object":…}` and a newline, as UTF-8: every watch
   * of an event asks in turn, and writes the same bytes. `cause` is the watch cache's event
   * the line is made from (`object` is then this codec's shared object of it): the line is
   * built once per cause and type. Without a cause, a shared object's line is built once while
   * the object is among the `lineMemo` most recently written ones.
   */
  eventLine(type: WatchEventType, object: KubeObject, cause?: WatchEvent): Buffer {
    return this.encoded(type, object, cause).line;
  }

  /**
   * {@link eventLine} framed as one HTTP/1.1 chunk (length, CRLF, line, CRLF), remembered
   * alike: a watch stream writing straight to its socket sends these bytes as they are.
   */
  eventChunk(type: WatchEventType, object: KubeObject, cause?: WatchEvent): Buffer {
    return this.encoded(type, object, cause).chunk;
  }

  /**
   * `chunks` (as {@link eventChunk} gives them) as one buffer. The watch cache hands a group of
   * events to every watch in turn, and most watches make the same chunks of it: the last
   * group joined is remembered, so they share one buffer rather than each allocating a copy.
   */
  joinChunks(chunks: readonly Buffer[]): Buffer {
    const last = this.lastJoin;
    if (last !== undefined && last.parts.length === chunks.length && last.parts.every((part, i) => part === chunks[i])) return last.joined;
    const joined = Buffer.concat(chunks);
    this.lastJoin = { parts: [...chunks], joined };
    return joined;
  }

  private encoded(type: WatchEventType, object: KubeObject, cause: WatchEvent | undefined): EncodedLine {
    if (cause !== undefined && this.shared.has(object)) {
      let byType = this.eventLines.get(cause);
      if (byType === undefined) this.eventLines.set(cause, (byType = {}));
      return (byType[type] ??= encodeLine(type, object));
    }
    let lines = this.lines.get(object);
    let encoded = lines?.[type];
    if (encoded !== undefined) return encoded;
    encoded = encodeLine(type, object);
    if (this.shared.has(object)) {
      if (lines === undefined) {
        lines = {};
        this.lines.set(object, lines);
        if (this.lines.size > this.lineMemo) this.lines.delete(this.lines.keys().next().value as KubeObject);
      }
      lines[type] = encoded;
    }
    return encoded;
  }

  /**
   * A long-lived KeyValue (the watch cache's) as a read answers it — `JSON.stringify` of
   * {@link decodeOnce}'s object — in UTF-8, built once per stored value (memoized): a GET
   * sends these bytes without parsing or serializing. Shared and read-only.
   */
  json(kv: KeyValue): Buffer {
    let text = this.texts.get(kv);
    if (text === undefined) {
      const json = JSON.stringify(this.decodeOnce(kv));
      // Outside Node's shared allocation pool: a kept buffer must not pin a pool slab.
      text = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
      text.write(json);
      this.texts.set(kv, text);
    }
    return text;
  }

  /** The value to store for `object` at `key` (the key binds an encrypted value to its place). */
  encode(object: KubeObject, key: string): string {
    const { resourceVersion: _dropped, ...metadata } = object.metadata;
    const json = JSON.stringify({ ...object, metadata });
    return this.transformer === undefined ? json : this.transformer.toStorage(json, key);
  }

  /**
   * The value to store instead of `kv`'s so that it is encrypted under the current key, or
   * undefined when it is already (or this codec does not encrypt): the re-encryption pass.
   */
  reencoded(kv: KeyValue): string | undefined {
    const transformer = this.transformer;
    if (transformer === undefined || transformer.isCurrent(kv.value)) return undefined;
    return transformer.toStorage(transformer.fromStorage(kv.value, kv.key), kv.key);
  }
}

function encodeLine(type: WatchEventType, object: KubeObject): EncodedLine {
  const chunk = frameChunk(Buffer.from(`{"type":"${type}","object":${JSON.stringify(object)}}\n`));
  return { chunk, line: chunkBody(chunk) };
}

/** One watch line and the same bytes framed as an HTTP/1.1 chunk (the line is a view into it). */
interface EncodedLine {
  readonly line: Buffer;
  readonly chunk: Buffer;
}
