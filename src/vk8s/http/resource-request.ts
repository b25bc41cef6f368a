import type { FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { Principal } from '../../auth/principal.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import type { Strategy } from '../../registry/strategy.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Clock } from '../../common/clock.js';
import type { VirtualClusterStorage } from '../cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ResourceType } from '../../apimachinery/resource-type.js';
import type { ClusterNodeSource } from './cluster-node-source.js';
import type { Logger } from '../../observability/logger.js';
import type { AdmissionHook } from './admission-hook.js';
import type { NamespaceMetadataStore } from '../namespace-metadata.js';
import type { PodSecurityLevel } from '../../api/pod-security/index.js';
import { fieldManagerOf, parseDryRun, type RawQuery } from './query.js';
import type { RequestInfo } from './request-info.js';
import type { TableFormat } from './response-format.js';

/** Applies a server-side apply patch (injected: the apply machinery). */
export type ApplyFunction = (options: {
  live: KubeObject | undefined;
  applied: KubeObject;
  manager: string;
  force: boolean;
  now: string;
  resource: ResourceType;
}) => KubeObject;

export interface ResourceHandlerDependencies {
  readonly storage: VirtualClusterStorage;
  readonly clock: Clock;
  readonly tables?: TableFormat;
  readonly apply?: ApplyFunction;
  /** How often watches that allow them get a BOOKMARK (kube: about a minute). */
  readonly bookmarkIntervalMs?: number;
  /** When set, `nodes` is this read-only view (the sites' Nodes) instead of the cluster's stored Nodes. */
  readonly nodes?: ClusterNodeSource;
  /** Validating admission of creates, updates and patches of main resources (dry runs too). */
  readonly admission?: AdmissionHook;
  /** The namespace's labels and annotations (writable), and the cluster's Pod Security floor; without it namespaces are read-only. */
  readonly namespaces?: { readonly metadata: NamespaceMetadataStore; floor(cluster: ClusterRef): PodSecurityLevel };
  /** Where watches closed for a client that stopped reading are told. */
  readonly logger?: Logger;
  /** Aborted when the server stops: every watch ends its stream cleanly, so clients watch again (on another server). */
  readonly watchesEnd?: AbortSignal;
}

/** The cluster a request is for, as the mount's preHandler found it. */
export interface ClusterRequestContext {
  readonly principal: Principal;
  readonly cluster: ClusterRef;
  /** The virtual_k8s object's creation time and uid: the namespace object's. */
  readonly createdAt: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** One resource request, resolved: what it is for and where it goes. */
export interface ResourceRequest {
  readonly info: RequestInfo;
  readonly resource: ResourceType;
  readonly strategy: Strategy;
  readonly context: ClusterRequestContext;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly query: RawQuery;
  readonly deps: ResourceHandlerDependencies;
}

export function storeOf(r: ResourceRequest): GenericStore {
  const store = r.deps.storage.storeFor(r.resource);
  if (store === undefined) throw StatusError.methodNotAllowed(r.info.verb, { resource: r.resource.resource, group: r.resource.group });
  return store;
}

export function scopeOf(r: ResourceRequest): RequestScope {
  return { cluster: r.context.cluster, dryRun: parseDryRun(r.query), fieldManager: fieldManagerOf(r.query, r.request.headers['user-agent']) };
}

/**
 * Runs the admission hook, if any, on an object about to be written (main resource only); its
 * warnings become the reply's `Warning: 299 - "…"` headers (replacing those of an earlier try).
 */
export function admit(r: ResourceRequest, object: KubeObject, old?: KubeObject): void {
  const operation = old === undefined ? 'CREATE' : 'UPDATE';
  const request = { operation, cluster: r.context.cluster, resource: r.resource, object, ...(old === undefined ? {} : { old }), dryRun: scopeOf(r).dryRun } as const;
  const warnings = r.deps.admission?.(request) ?? [];
  if (warnings.length > 0) void r.reply.header('warning', warnings.map(warningHeader));
}

/** An RFC 7234 warning value as kube-apiserver writes it: code 299, no agent, the text quoted. */
export function warningHeader(text: string): string {
  return `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export function nameOf(r: ResourceRequest): string {
  return r.info.name ?? '';
}

/** The raw request body (the mount parses every content type as a buffer). */
export function rawBody(r: ResourceRequest): Buffer | undefined {
  return Buffer.isBuffer(r.request.body) ? r.request.body : undefined;
}

