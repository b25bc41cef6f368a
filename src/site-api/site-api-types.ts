/**
 * The wire shapes of the site API (contract (6) of wave 3): what an agent sends to and
 * receives from `/api/sites/v1/…` on the control plane. JSON as sent; nothing here is
 * validated beyond what the agent reads.
 */
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { SiteRuntime, SiteType } from './site-model.js';
import type { KubeObject } from '../apimachinery/object.js';

export type { ClusterRef } from '../apimachinery/cluster-ref.js';

/** One node of a site as registration describes it (quantities as Kubernetes writes them). */
interface RegisterNode {
  readonly name: string;
  readonly cpu: string;
  readonly memory: string;
}

/** One site in `POST /api/sites/v1/register`. */
export interface RegisterSite {
  readonly name: string;
  readonly type: SiteType;
  readonly labels: Readonly<Record<string, string>>;
  readonly nodes: readonly RegisterNode[];
  readonly quota?: { readonly cpu: string; readonly memory: string };
  /** How the site runs pods (absent: `simulated`); runc sites' pods get the workload sidecar. */
  readonly runtime?: SiteRuntime;
  /** runc only: the runtime's version, shown in its Nodes' `containerRuntimeVersion` as `runc://<version>`. */
  readonly runtimeVersion?: string;
}

export interface RegisterRequest {
  readonly agent: string;
  /** PEM PKCS#10 certificate request for the agent's key. */
  readonly csr: string;
  readonly sites: readonly RegisterSite[];
}

export interface RegisterResponse {
  /** PEM chain: the agent's client certificate, then the CA. */
  readonly certificate: string;
  readonly ca: string;
  readonly sites: readonly string[];
}

export interface HeartbeatResponse {
  readonly leaseSeconds: number;
}

/** One line of `GET /api/sites/v1/pods?watch=1`. */
export interface PodWatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly cluster?: ClusterRef;
  readonly object: KubeObject;
}

/** A pod as the site API names it. */
export interface PodRef {
  readonly cluster: ClusterRef;
  readonly name: string;
  readonly uid: string;
}

/** One item of `POST /api/sites/v1/pods/events`: an Event about a pod, as kubelet records them. */
export interface PodEventReport extends PodRef {
  readonly type: 'Normal' | 'Warning';
  /** A CamelCase word: `Started`, `BackOff`, `Unhealthy`, … */
  readonly reason: string;
  readonly message: string;
}

/** One item of `POST /api/sites/v1/pods/status`. */
export interface PodStatusItem extends PodRef {
  readonly status: Record<string, unknown>;
}

/**
 * One result of `POST /api/sites/v1/pods/status` or `…/pods/terminated`, in the order of the
 * items; on failure the Status message, reason and HTTP code (5xx and 429: try again later).
 */
export interface PodStatusResult {
  readonly name: string;
  readonly error?: string;
  readonly reason?: string;
  readonly code?: number;
}

/** The answer of `POST /api/sites/v1/pods/identity-token`: a bootstrap token for the pod's sidecar. */
export type { BootstrapToken } from './identity-bundle.js';
