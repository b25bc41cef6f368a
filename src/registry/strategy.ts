import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { NameRule } from '../apimachinery/validation/name-rule.js';
import type { StatusCause } from '../apimachinery/errors/status-error.js';
import type { Store } from '../store/types.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ResourceType } from '../apimachinery/resource-type.js';

/** What a strategy's rules may look at besides the objects. */
export interface StrategyContext {
  readonly cluster: ClusterRef;
  /** The request's time (RFC 3339, seconds), for timestamps the strategy sets. */
  readonly now: string;
}

/** kube-apiserver's DeletionPropagation. */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/** The `/status` subresource: the same object, a strategy that keeps everything but status. */
export interface StatusStrategy {
  /** Copy what a status write must not change from `old` (spec, most metadata). */
  prepareForUpdate(object: KubeObject, old: KubeObject): void;
  validateUpdate(object: KubeObject, old: KubeObject, context: StrategyContext): StatusCause[];
}

/** The `/scale` subresource (autoscaling/v1 Scale) of a kind with replicas. */
export interface ScaleAccess {
  specReplicas(object: KubeObject): number;
  setSpecReplicas(object: KubeObject, replicas: number): void;
  statusReplicas(object: KubeObject): number;
  /** The label selector as a string (`app=web,tier in (a,b)`), as Scale's status.selector. */
  selector(object: KubeObject): string;
}

/** Reserve-then-write steps a kind needs around its store writes (Service ClusterIPs). */
export interface AllocationHooks {
  /**
   * Before a create (after defaulting and validation): allocate what the object needs and
   * write it into the object. Returns the undo to run if the write then fails. Under
   * dry-run it must check without reserving (kube's dry-run allocators).
   */
  beforeCreate(object: KubeObject, context: AllocationContext): Promise<() => Promise<void>>;
  /** Before an update: allocate for changed fields; returns the undo. */
  beforeUpdate(object: KubeObject, old: KubeObject, context: AllocationContext): Promise<() => Promise<void>>;
  /** After the object is gone from the store: release what it held. */
  afterDelete(old: KubeObject, context: AllocationContext): Promise<void>;
}

export interface AllocationContext extends StrategyContext {
  /** The store the allocations live in (keys under `/vk8s-alloc/`). */
  readonly store: Store;
  readonly dryRun: boolean;
}

/**
 * Everything kind-specific about an object's lifecycle, as pure functions (after
 * kube-apiserver's RESTCreateStrategy / RESTUpdateStrategy / RESTDeleteStrategy). The generic
 * store runs them in a fixed order: decode → `defaults` → system metadata → `prepareForCreate`
 * | `prepareForUpdate` → generic ObjectMeta validation → `validate` | `validateUpdate` → CAS
 * write. Adding a kind means adding one strategy file.
 */
export interface Strategy {
  readonly resource: ResourceType;
  readonly nameRule: NameRule;
  /** Scheme defaulting (kube's `SetDefaults_*`), in place; runs on every decoded write body. */
  defaults(object: KubeObject): void;
  /** Before create: reset what users cannot set (status), set generation 1 where kube does. */
  prepareForCreate(object: KubeObject): void;
  /** Before update: keep old status, bump generation on spec change where kube does. */
  prepareForUpdate(object: KubeObject, old: KubeObject): void;
  /** Kind rules on create; field paths as kube's (`spec.template.spec.containers[0].image`). */
  validate(object: KubeObject, context: StrategyContext): StatusCause[];
  /** Kind rules on update, immutable fields included. */
  validateUpdate(object: KubeObject, old: KubeObject, context: StrategyContext): StatusCause[];
  /** Field-selector fields beyond metadata.name and metadata.namespace (kube's ToSelectableFields). */
  selectableFields(object: KubeObject): Record<string, string>;
  /** DELETE without a propagation policy: Orphan for batch Jobs and CronJobs, else Background. */
  readonly defaultPropagation: PropagationPolicy;
  readonly status?: StatusStrategy;
  /**
   * The platform's binding write (kube's `pods/binding`): what a scheduler may change on a
   * stored object that the main strategy forbids (a pod's `spec.nodeName`). Never routed from
   * HTTP; only the platform's own clients pass `subresource: 'binding'`.
   */
  readonly binding?: StatusStrategy;
  readonly scale?: ScaleAccess;
  readonly allocation?: AllocationHooks;
  /** DELETE answers with the object instead of a Status (pods). */
  readonly returnDeletedObject?: boolean;
  /** Graceful deletion: the grace period when the request gives none (pods), else immediate. */
  defaultGracePeriodSeconds?(object: KubeObject): number;
}
