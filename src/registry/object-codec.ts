import type { KeyValue } from '../store/types.js';
import type { KubeObject } from '../vk8s/object.js';

/**
 * Objects are stored as JSON without `metadata.resourceVersion`: the store's modRevision
 * is the resourceVersion, set when an object is read (as kube-apiserver's etcd3 store does).
 * {@link decode} memoizes per KeyValue, so the watch cache's thousands of readers parse each
 * stored value once; those objects are shared and must be treated as read-only. A KeyValue
 * read once from the store goes through {@link decodeOnce}: an entry in the memo's WeakMap
 * would keep a short-lived object graph alive through young-generation collections, which
 * costs more than the parse it could save.
 *
 * A watch event goes to every watch of its resource: {@link json} serializes each shared
 * object once for all of them (the most recent `jsonMemo` objects are remembered).
 */
export class ObjectCodec {
  private readonly decoded = new WeakMap<KeyValue, KubeObject>();
  private readonly deleted = new WeakMap<KeyValue, KubeObject>();
  /** Objects this codec handed out as shared (read-only): only those have their JSON remembered. */
  private readonly shared = new WeakSet<KubeObject>();
  /** JSON of recently serialized shared objects, oldest first (a Map keeps insertion order). */
  private readonly texts = new Map<KubeObject, string>();
  private readonly jsonMemo: number;

  constructor(options: { readonly jsonMemo?: number } = {}) {
    this.jsonMemo = options.jsonMemo ?? 1024;
  }

  /** The shared, read-only object of a KeyValue the watch cache holds (memoized). */
  decode(kv: KeyValue): KubeObject {
    let object = this.decoded.get(kv);
    if (object === undefined) {
      object = JSON.parse(kv.value) as KubeObject;
      object.metadata.resourceVersion = String(kv.modRevision);
      this.decoded.set(kv, object);
      this.shared.add(object);
    }
    return object;
  }

  /** A fresh object for a KeyValue read once (not memoized; the caller owns it). */
  decodeOnce(kv: KeyValue): KubeObject {
    const object = JSON.parse(kv.value) as KubeObject;
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
    const object = JSON.parse(prev.value) as KubeObject;
    object.metadata.resourceVersion = String(revision);
    if (memo === undefined) {
      this.deleted.set(prev, object);
      this.shared.add(object);
    }
    return object;
  }

  /**
   * `JSON.stringify(object)`; for a shared object of this codec, computed once while it is
   * among the `jsonMemo` most recently serialized (every watch of an event asks in turn).
   */
  json(object: KubeObject): string {
    let text = this.texts.get(object);
    if (text !== undefined) return text;
    text = JSON.stringify(object);
    if (this.shared.has(object)) {
      this.texts.set(object, text);
      if (this.texts.size > this.jsonMemo) this.texts.delete(this.texts.keys().next().value as KubeObject);
    }
    return text;
  }

  encode(object: KubeObject): string {
    const { resourceVersion: _dropped, ...metadata } = object.metadata;
    return JSON.stringify({ ...object, metadata });
  }
}
