import protobuf from 'protobufjs';
import type { KubernetesProto } from './kubernetes-proto.js';
import { ProtoToJsonError, protoToJson } from './proto-to-json.js';

/** The 4 bytes that open every Kubernetes protobuf body: `k8s\0`. */
export const KUBERNETES_PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A protobuf body kube-apiserver could not decode; the message is its serializer's wording. */
export class KubernetesProtobufError extends Error {}

const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/**
 * Decodes an `application/vnd.kubernetes.protobuf` body — the magic, then a runtime.Unknown whose
 * typeMeta names the object and whose raw bytes are its message — into the JSON object the same
 * write sends as JSON, apiVersion and kind first. A built-in kind's message is
 * `k8s.io.api.<group, or core>.<version>.<Kind>`; meta/v1 kinds (DeleteOptions) are looked up
 * there too. Throws KubernetesProtobufError for a body that is not one (missing magic, malformed
 * message, a kind without a schema).
 */
export function decodeKubernetesProtobuf(raw: Uint8Array, proto: KubernetesProto): Record<string, unknown> {
  if (raw.length === 0) throw new KubernetesProtobufError('empty data');
  if (raw.length < KUBERNETES_PROTOBUF_MAGIC.length || KUBERNETES_PROTOBUF_MAGIC.some((b, i) => raw[i] !== b)) {
    throw new KubernetesProtobufError(`provided data does not appear to be a protobuf message, expected prefix [${KUBERNETES_PROTOBUF_MAGIC.join(' ')}]`);
  }
  const unknown = decode(proto.root.lookupType(UNKNOWN), raw.subarray(KUBERNETES_PROTOBUF_MAGIC.length)) as {
    typeMeta?: { apiVersion?: string; kind?: string };
    raw?: Uint8Array;
  };
  const apiVersion = unknown.typeMeta?.apiVersion ?? '';
  const kind = unknown.typeMeta?.kind ?? '';
  if (kind === '') throw new KubernetesProtobufError("Object 'Kind' is missing in protobuf body");
  const type = messageType(proto.root, apiVersion, kind);
  if (type === undefined) throw new KubernetesProtobufError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`);
  try {
    const object = protoToJson(proto, type, decode(type, unknown.raw ?? new Uint8Array()));
    return { apiVersion, kind, ...(object as Record<string, unknown>) };
  } catch (error) {
    if (error instanceof ProtoToJsonError) throw new KubernetesProtobufError(error.message);
    throw error;
  }
}

function decode(type: protobuf.Type, bytes: Uint8Array): protobuf.Message {
  try {
    return type.decode(bytes);
  } catch (error) {
    throw new KubernetesProtobufError(error instanceof Error ? error.message : String(error));
  }
}

function messageType(root: protobuf.Root, apiVersion: string, kind: string): protobuf.Type | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? 'core' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  for (const name of [`k8s.io.api.${group}.${version}.${kind}`, `${META}.${kind}`]) {
    const found = root.lookup(name);
    if (found instanceof protobuf.Type) return found;
  }
  return undefined;
}
