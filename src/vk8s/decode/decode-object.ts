import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubernetesOpenApi } from '../openapi/kubernetes-document.js';
import { loadKubernetesOpenApi } from '../openapi/kubernetes-document.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { goTypeName } from './go-names.js';
import { GvkRegistry, groupVersionString } from './gvk-registry.js';
import type { GroupVersionKind } from './interpret-type-meta.js';
import { interpretTypeMeta, withDefaultGvk } from './interpret-type-meta.js';
import { SchemaCompiler } from './schema-compiler.js';
import { summarizeData } from './summarize-data.js';
import type { DecodeContext, TypeNode } from './type-node.js';
import { TypeDecodeError, isJsonObject } from './type-node.js';

/** The kind an endpoint serves, and optionally its OpenAPI definition (else found by group/version/kind). */
export interface ExpectedKind extends GroupVersionKind {
  readonly definition?: string;
}

export interface DecodeObjectOptions {
  /** Reject unknown fields (`fieldValidation=Strict`) instead of dropping them as 1.17 does. */
  readonly strict?: boolean;
  /** Receives the paths of the unknown fields dropped (`spec.bogus`), for `fieldValidation=Warn`. */
  readonly unknownFields?: string[];
  /** The request body as received, quoted in errors as kube quotes it (else the value re-encoded). */
  readonly body?: Uint8Array;
  /** The OpenAPI document to check against (else the Kubernetes 1.17 one from dist/k8s). */
  readonly openapi?: KubernetesOpenApi;
}

/** The scheme name kube-apiserver 1.17 prints in "no kind is registered" errors. */
const SCHEME = 'k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30';

/**
 * Decodes request bodies into typed objects against one OpenAPI document, compiling each
 * definition once. See {@link decodeObject}.
 */
class ObjectDecoder {
  private readonly compiler: SchemaCompiler;
  private readonly registry: GvkRegistry;

  constructor(openapi: KubernetesOpenApi) {
    this.compiler = new SchemaCompiler(openapi.definitions);
    this.registry = new GvkRegistry(openapi);
  }

  /** The compiled node of a definition, for callers that decode parts of objects. */
  node(definition: string): TypeNode {
    return this.compiler.definition(definition);
  }

  decode(value: unknown, expected: ExpectedKind, options: DecodeObjectOptions = {}): KubeObject {
    const body = (): Uint8Array => options.body ?? Buffer.from(JSON.stringify(value) ?? '', 'utf8');
    const meta = interpretTypeMeta(value);
    if ('error' in meta) {
      throw StatusError.badRequest(`the object provided is unrecognized (must be of type ${expected.kind}): ${meta.error} (${summarizeData(body())})`);
    }
    const actual = withDefaultGvk(meta, expected);
    const cannotHandle = (detail: string): StatusError =>
      StatusError.badRequest(`${actual.kind} in version "${actual.version}" cannot be handled as a ${expected.kind}: ${detail}`);
    if (actual.version === '') throw cannotHandle(`Object 'apiVersion' is missing in '${Buffer.from(body()).toString('utf8')}'`);

    const same = actual.group === expected.group && actual.version === expected.version && actual.kind === expected.kind;
    const definition = same ? (expected.definition ?? this.registry.definitionOf(expected.group, expected.version, expected.kind)) : this.registry.definitionOf(actual.group, actual.version, actual.kind);
    if (definition === undefined) {
      if (same) throw new Error(`no OpenAPI definition for ${groupVersionString(expected.group, expected.version)} ${expected.kind}`);
      throw cannotHandle(`no kind "${actual.kind}" is registered for version "${groupVersionString(actual.group, actual.version)}" in scheme "${SCHEME}"`);
    }
    const collect = options.strict === true || options.unknownFields !== undefined;
    const context: DecodeContext = { path: collect ? [] : undefined, unknownFields: [] };
    let decoded: unknown;
    try {
      decoded = this.compiler.definition(definition).decode(value ?? {}, context);
    } catch (error) {
      if (error instanceof TypeDecodeError) throw cannotHandle(error.detail);
      throw error;
    }
    if (actual.kind !== expected.kind) {
      throw cannotHandle(`converting (${goTypeName(definition)}) to (${internalPackage(expected.group)}.${expected.kind}): unknown conversion`);
    }
    if (!same) {
      throw StatusError.badRequest(
        `the API version in the data (${groupVersionString(actual.group, actual.version)}) does not match the expected API version (${groupVersionString(expected.group, expected.version)})`,
      );
    }
    options.unknownFields?.push(...context.unknownFields);
    if (options.strict === true && context.unknownFields.length > 0) {
      throw cannotHandle(`strict decoding error: ${context.unknownFields.map((field) => `unknown field "${field}"`).join(', ')}`);
    }
    const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = isJsonObject(decoded) ? decoded : {};
    return {
      apiVersion: groupVersionString(expected.group, expected.version),
      kind: expected.kind,
      metadata: isJsonObject(metadata) ? metadata : {},
      ...rest,
    };
  }
}

/** The Go package of a group's internal types (`core` for the legacy group). */
function internalPackage(group: string): string {
  return group === '' ? 'core' : (group.split('.')[0] ?? group);
}

const decoders = new WeakMap<KubernetesOpenApi, ObjectDecoder>();

/**
 * Decodes a parsed request body into the kind an endpoint serves, as kube-apiserver 1.17 does
 * (TypeMeta, then json-iterator into the typed struct), so that strategies may trust its types:
 *
 * - `kind`/`apiVersion` default to the endpoint's when left out; another version of the same
 *   kind is 400 `the API version in the data (apps/v1beta1) does not match the expected API
 *   version (apps/v1)`; another kind is 400 `<Kind> in version "<v>" cannot be handled as a
 *   <Expected>: …` (unknown conversion, or not registered);
 * - wrong types are 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: v1.Deployment.Spec:
 *   v1.DeploymentSpec.Replicas: readUint32: unexpected character: …` (json-iterator's path and
 *   message, without its byte offsets);
 * - unknown fields are dropped, or with `strict` rejected: `strict decoding error: unknown
 *   field "spec.bogus"`; `null` fields are dropped; quantities, times and base64 are
 *   normalised as Go re-encodes them (`1024Mi` → `1Gi`, times in UTC).
 *
 * The result carries the endpoint's apiVersion and kind and always a metadata object.
 */
export function decodeObject(value: unknown, expected: ExpectedKind, options: DecodeObjectOptions = {}): KubeObject {
  const openapi = options.openapi ?? loadKubernetesOpenApi();
  let decoder = decoders.get(openapi);
  if (decoder === undefined) {
    decoder = new ObjectDecoder(openapi);
    decoders.set(openapi, decoder);
  }
  return decoder.decode(value, expected, options);
}
