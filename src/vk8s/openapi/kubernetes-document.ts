import { readFileSync } from 'node:fs';
import { addPlatformExtensions } from './platform-extensions.js';

/** The Kubernetes 1.17 OpenAPI v2 document the build placed in dist/k8s (see scripts/fetch-k8s-openapi.mjs). */
export interface KubernetesOpenApi {
  readonly swagger: string;
  readonly paths: Record<string, unknown>;
  readonly definitions: Record<string, Record<string, unknown>>;
}

let loaded: KubernetesOpenApi | undefined;

export function loadKubernetesOpenApi(): KubernetesOpenApi {
  if (loaded === undefined) {
    const url = new URL('../../../k8s/swagger-1.17.json', import.meta.url);
    try {
      const document = JSON.parse(readFileSync(url, 'utf8')) as KubernetesOpenApi;
      addPlatformExtensions(document);
      loaded = document;
    } catch (error) {
      throw new Error(`the Kubernetes 1.17 OpenAPI document is missing at ${url.pathname}; run "npm run build" (it fetches it from the npm registry): ${String(error)}`);
    }
  }
  return loaded;
}
