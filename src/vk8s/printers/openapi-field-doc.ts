import { loadKubernetesOpenApi } from '../openapi/kubernetes-document.js';
import type { FieldDoc } from './table-printer.js';

/**
 * Column descriptions from the Kubernetes 1.17 OpenAPI document the build places in dist/k8s.
 * Its property descriptions are the same text as the Go types' `SwaggerDoc()` maps kube's
 * printers read, so the columns match kube-apiserver's word for word.
 */
export const openApiFieldDoc: FieldDoc = (definition, field) => {
  const properties = loadKubernetesOpenApi().definitions[definition]?.['properties'];
  if (typeof properties !== 'object' || properties === null) return '';
  const property = (properties as Record<string, unknown>)[field];
  if (typeof property !== 'object' || property === null) return '';
  const description = (property as Record<string, unknown>)['description'];
  return typeof description === 'string' ? description : '';
};
