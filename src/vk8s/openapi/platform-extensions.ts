const SECCOMP_PROFILE = 'io.k8s.api.core.v1.SeccompProfile';

/**
 * What the virtual clusters serve beyond Kubernetes 1.17, added to its OpenAPI document so
 * bodies keep it, kubectl validates it and `kubectl explain` shows it: `seccompProfile` on pod
 * and container security contexts (Kubernetes 1.19's field, which the sites apply and Pod
 * Security's restricted level asks for; the 1.17 annotations are read too).
 */
export function addPlatformExtensions(document: { readonly definitions: Record<string, Record<string, unknown>> }): void {
  const definitions = document.definitions;
  definitions[SECCOMP_PROFILE] = {
    description: "SeccompProfile defines a pod/container's seccomp profile settings. Only one profile source may be set.",
    required: ['type'],
    type: 'object',
    properties: {
      localhostProfile: { description: "localhostProfile indicates a profile defined in a file on the node should be used. Must only be set if type is \"Localhost\". (The sites of this platform have no profiles of their own: Localhost is refused.)", type: 'string' },
      type: { description: 'type indicates which kind of seccomp profile will be applied. Valid options are: Localhost, RuntimeDefault, Unconfined.', type: 'string' },
    },
  };
  for (const context of ['io.k8s.api.core.v1.SecurityContext', 'io.k8s.api.core.v1.PodSecurityContext']) {
    const definition = definitions[context] as { properties?: Record<string, unknown> } | undefined;
    if (definition?.properties === undefined) continue;
    definition.properties['seccompProfile'] = {
      $ref: `#/definitions/${SECCOMP_PROFILE}`,
      description: 'The seccomp options to use by the containers in this pod (or this container, which overrides the pod). RuntimeDefault by default on the sites of this platform.',
    };
  }
}
