import protobuf from 'protobufjs';
import type { KubernetesProto } from './kubernetes-proto.js';
import { formatGoDuration } from './format-go-duration.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** How protobufjs hands a decoded message over: only the fields on the wire, int64 as numbers, bytes as base64 (Go's JSON form of []byte). */
const AS_OBJECT: protobuf.IConversionOptions = { longs: Number, bytes: String, defaults: false, arrays: false, objects: false };

/** Raised when a message's content has no JSON form (a RawExtension that is not JSON). */
export class ProtoToJsonError extends Error {}

/**
 * The JSON form Kubernetes gives a decoded protobuf message of `type`: field names as they are
 * (they are the JSON names), maps and lists as objects and arrays (empty ones omitted), bytes in
 * base64, int64 as numbers, and the apimachinery types that marshal to JSON specially —
 * IntOrString (a number or a string), Quantity (a string), Time and MicroTime (RFC 3339 UTC, in
 * seconds and microseconds; an empty one is null), Duration (Go's duration text), RawExtension and
 * FieldsV1 (the JSON they carry), Verbs (an array). A scalar at its zero value is dropped unless
 * the JSON form keeps it (`proto.keepZero`: Go pointers such as replicas, fields without omitempty),
 * since gogo writes every non-pointer field.
 */
export function protoToJson(proto: KubernetesProto, type: protobuf.Type, message: protobuf.Message): unknown {
  return convert(proto, type, type.toObject(message, AS_OBJECT));
}

function convert(proto: KubernetesProto, type: protobuf.Type, value: unknown): unknown {
  const object = value as Record<string, unknown>;
  const name = type.fullName.slice(1);
  switch (name) {
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return object.type === 1 ? (object.strVal ?? '') : (object.intVal ?? 0);
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return object.string ?? '';
    case `${META}.Time`:
      return timestamp(object, false);
    case `${META}.MicroTime`:
      return timestamp(object, true);
    case `${META}.Duration`:
      return formatGoDuration(Number(object.duration ?? 0));
    case `${META}.Verbs`:
      return object.items ?? [];
    case `${META}.FieldsV1`:
      return embeddedJson(object.Raw);
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
      return embeddedJson(object.raw);
    default:
      return fields(proto, type, name, object);
  }
}

function fields(proto: KubernetesProto, type: protobuf.Type, name: string, object: Record<string, unknown>): Record<string, unknown> {
  const keep = proto.keepZero.get(name);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const field = type.fields[key];
    if (field === undefined) continue;
    const element = field.resolvedType;
    if (element instanceof protobuf.Type) {
      if (field.map) out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, convert(proto, element, v)]));
      else if (field.repeated) out[key] = (value as unknown[]).map((v) => convert(proto, element, v));
      else out[key] = convert(proto, element, value);
    } else if (field.map || field.repeated || !isZero(value) || keep?.has(key) === true) {
      out[key] = value;
    }
  }
  return out;
}

const isZero = (value: unknown): boolean => value === '' || value === 0 || value === false;

/** Time/MicroTime as Go marshals metav1 times: UTC RFC 3339, null for the zero time (an empty message). */
function timestamp(object: Record<string, unknown>, micro: boolean): string | null {
  if (object.seconds === undefined && object.nanos === undefined) return null;
  const seconds = Number(object.seconds ?? 0);
  const text = metav1Time(seconds * 1000);
  if (!micro) return text;
  const micros = Math.floor(Number(object.nanos ?? 0) / 1000);
  return text.replace(/Z$/, `.${String(micros).padStart(6, '0')}Z`);
}

/** The JSON a RawExtension/FieldsV1 carries (base64 here, from the bytes option above); absent when empty. */
function embeddedJson(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw === '') return null;
  const text = Buffer.from(raw, 'base64').toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProtoToJsonError(`embedded object is not JSON: ${text.slice(0, 30)}`);
  }
}
