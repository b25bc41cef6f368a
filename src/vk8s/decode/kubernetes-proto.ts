import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** Where the build put the Kubernetes generated.proto files (see scripts/fetch-k8s-proto.mjs). */
const KUBERNETES_PROTO_DIR = new URL('../../../k8s-proto/', import.meta.url);

/** The schema files loaded, by import path; they import each other by the same paths. */
const FILES = [
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/apps/v1/generated.proto',
  'k8s.io/api/batch/v1/generated.proto',
  'k8s.io/api/batch/v1beta1/generated.proto',
  'k8s.io/api/autoscaling/v1/generated.proto',
];

/** The Kubernetes protobuf schemas: the message types and, per message, the fields whose zero value the JSON form keeps. */
export interface KubernetesProto {
  readonly root: protobuf.Root;
  /** `<package>.<Message>` (no leading dot) → scalar fields that keep a zero value (Go pointers, no omitempty). */
  readonly keepZero: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Loads the schemas from `dir` (proto field names kept as written: they are the JSON names). */
function loadKubernetesProto(dir: URL = KUBERNETES_PROTO_DIR): KubernetesProto {
  const base = fileURLToPath(dir);
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(base, target));
  try {
    root.loadSync(FILES.map((f) => join(base, f)), { keepCase: true });
    root.resolveAll();
    const table = JSON.parse(readFileSync(join(base, 'keep-zero.json'), 'utf8')) as Record<string, string[]>;
    return { root, keepZero: new Map(Object.entries(table).map(([message, fields]) => [message, new Set(fields)])) };
  } catch (error) {
    throw new Error(`the Kubernetes protobuf schemas could not be loaded from ${base}; run "npm run build" (it fetches them from Debian's archive): ${String(error)}`);
  }
}

let loaded: KubernetesProto | undefined;

/** The schemas the build placed in dist/k8s-proto, loaded once on first use. */
export function kubernetesProto(): KubernetesProto {
  loaded ??= loadKubernetesProto();
  return loaded;
}
