import { OpenApiPatchSchemas } from '../../apimachinery/patch/patch-schema.js';
import { loadKubernetesOpenApi } from '../openapi/kubernetes-document.js';

let schemas: OpenApiPatchSchemas | undefined;

/** The strategic merge patch schemas of the served kinds (from the OpenAPI document, built once). */
export function patchSchemas(): OpenApiPatchSchemas {
  schemas ??= new OpenApiPatchSchemas(loadKubernetesOpenApi().definitions);
  return schemas;
}
