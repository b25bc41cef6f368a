/** The virtual cluster a request is for: one tenant's virtual_k8s object. */
export interface ClusterRef {
  readonly tenant: string;
  /** The platform namespace of the virtual_k8s object: the one Kubernetes namespace inside. */
  readonly namespace: string;
  readonly name: string;
}
