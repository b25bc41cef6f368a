import type protobuf from 'protobufjs';
import { loadKubernetesOpenApi } from './kubernetes-document.js';
import { RESOURCES } from '../resources.js';
import { type ResourceType } from '../../apimachinery/resource-type.js';
import { encodeGnosticDocument, loadGnosticDocumentType } from './gnostic-proto.js';
import { OpenApiV2Document } from './openapi-v2-document.js';
import { trimOpenApi, type OpenApiSource } from './trim-openapi.js';

export interface VirtualClusterOpenApiOptions {
  /** `Last-Modified` of the answers. */
  readonly builtAt: Date;
  /** The served resources; the vK8s table by default. */
  readonly resources?: readonly ResourceType[];
  /** The full document; the Kubernetes 1.17 swagger from dist/k8s by default. */
  readonly source?: OpenApiSource;
  /** gnostic's `openapi.v2.Document`; loaded from dist/gnostic by default. */
  readonly documentType?: protobuf.Type;
}

/**
 * The `/openapi/v2` document every virtual cluster serves: the 1.17 swagger trimmed to the
 * served resources, as JSON and as gnostic protobuf. Costs about 0.2 s; build it once.
 */
export function buildVirtualClusterOpenApi(options: VirtualClusterOpenApiOptions): OpenApiV2Document {
  const spec = trimOpenApi(options.source ?? loadKubernetesOpenApi(), options.resources ?? RESOURCES);
  const json = Buffer.from(JSON.stringify(spec));
  const protobuf = encodeGnosticDocument(options.documentType ?? loadGnosticDocumentType(), spec);
  return new OpenApiV2Document({ json, protobuf }, options.builtAt);
}
