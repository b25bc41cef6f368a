import type { KubernetesOpenApi } from '../openapi/kubernetes-document.js';

/** `apps/v1`, or `v1` for the core group. */
export const groupVersionString = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);

/**
 * Which kinds kube-apiserver 1.17's scheme knows in which group/version, and the OpenAPI
 * definition of each, read from the definitions' `x-kubernetes-group-version-kind` (the
 * document lists every registered version, served or not, e.g. apps/v1beta1 Deployment).
 */
export class GvkRegistry {
  private readonly definitions = new Map<string, string>();

  constructor(openapi: KubernetesOpenApi) {
    for (const [name, schema] of Object.entries(openapi.definitions)) {
      const gvks = schema['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      for (const gvk of gvks as unknown[]) {
        if (typeof gvk !== 'object' || gvk === null) continue;
        const { group, version, kind } = gvk as Record<string, unknown>;
        if (typeof group === 'string' && typeof version === 'string' && typeof kind === 'string') {
          this.definitions.set(`${groupVersionString(group, version)}|${kind}`, name);
        }
      }
    }
  }

  /** The definition name of a registered kind, or undefined. */
  definitionOf(group: string, version: string, kind: string): string | undefined {
    return this.definitions.get(`${groupVersionString(group, version)}|${kind}`);
  }
}
