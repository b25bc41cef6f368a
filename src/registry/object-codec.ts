import type { KeyValue } from '../store/types.js';
import type { KubeObject } from '../vk8s/object.js';

/**
 * Objects are stored as JSON without `metadata.resourceVersion`: the store's modRevision
 * is the resourceVersion, set when an object is read (as kube-apiserver's etcd3 store does).
 * Decoded objects are memoized per KeyValue, so the watch cache's thousands of readers
 * parse each stored value once; they are shared and must be treated as read-only.
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
