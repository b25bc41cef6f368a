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
 */
export class ObjectCodec {
  private readonly decoded = new WeakMap<KeyValue, KubeObject>();

  decode(kv: KeyValue): KubeObject {
    let object = this.decoded.get(kv);
    if (object === undefined) {
      object = JSON.parse(kv.value) as KubeObject;
      object.metadata.resourceVersion = String(kv.modRevision);
      this.decoded.set(kv, object);
    }
    return object;
  }

  /** A fresh object for a KeyValue read once (not memoized; the caller owns it). */
  decodeOnce(kv: KeyValue): KubeObject {
    const object = JSON.parse(kv.value) as KubeObject;
    object.metadata.resourceVersion = String(kv.modRevision);
    return object;
  }

  /** The deleted object as a watch's DELETED event carries it: at the deletion's revision. */
  decodeDeleted(prev: KeyValue, revision: number): KubeObject {
    const object = JSON.parse(prev.value) as KubeObject;
    object.metadata.resourceVersion = String(revision);
    return object;
  }

  encode(object: KubeObject): string {
    const { resourceVersion: _dropped, ...metadata } = object.metadata;
    return JSON.stringify({ ...object, metadata });
  }
}
