/** The configuration object envelope (seed, area C): metadata / system_metadata / spec. */

export interface ObjectMetadata {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  description: string;
  disable: boolean;
}

export interface SystemMetadata {
  uid: string;
  creation_timestamp: string;
  deletion_timestamp: string | null;
  modification_timestamp: string | null;
  initializers: { pending: unknown[]; result: unknown } | null;
  finalizers: string[];
  tenant: string;
  creator_class: string;
  creator_id: string;
  object_index: number;
  owner_view: null | { kind: string; uid: string; namespace: string; name: string };
  labels: Record<string, string>;
}

export type Spec = Record<string, unknown>;

/** What the store holds for one object. `resource_version` is the store's modRevision. */
export interface StoredObject {
  metadata: ObjectMetadata;
  system_metadata: SystemMetadata;
  spec: Spec;
  status: Array<Record<string, unknown>>;
}

export interface VersionedObject extends StoredObject {
  resource_version: string;
}

/** A reference from one object to another: `{tenant?, namespace, name, kind?}`. */
export interface ObjectRef {
  tenant: string;
  namespace: string;
  name: string;
  kind?: string;
}

/** What referring_objects and broken references list. */
export interface ObjectRefWithKind {
  kind: string;
  uid: string;
  tenant: string;
  namespace: string;
  name: string;
}
