import type { IdentityMaterial } from './identity-material.js';
import type { SidecarState } from './sidecar-state.js';

/** What the HTTP endpoints read: the current state, and the identity while one is served. */
export interface SidecarView {
  current(): SidecarState;
  /** Defined only in READY and DEGRADED. */
  identity(): IdentityMaterial | undefined;
}
