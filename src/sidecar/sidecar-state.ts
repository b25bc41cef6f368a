/**
 * The sidecar's lifecycle as a pure state machine: `sidecarTransition(state, event)` returns
 * the next state and does nothing else. Time enters only as the `at` of events (milliseconds
 * since the epoch); what to do next and when is `planNextAction`'s job, the I/O the driver's.
 */

/** The four words `GET /status` answers with (the seed's table). */
export type SidecarStateName = 'INITIALIZING' | 'READY' | 'DEGRADED' | 'HALTED';

/** The validity of the pod's current certificates (both leaves share it), in epoch ms. */
export interface IdentityValidity {
  readonly notBefore: number;
  readonly notAfter: number;
}

/** Why a sidecar halted. */
type HaltReason = 'RETRY_BUDGET_EXHAUSTED' | 'IDENTITY_EXPIRED';

/** Failures since the last identity was issued (0 after a success). */
interface FailureRecord {
  readonly failures: number;
  readonly lastFailureAt?: number;
  readonly lastError?: string;
}

/** No identity yet: bootstrap attempts with the token until one succeeds or the budget ends. */
export interface Initializing extends FailureRecord {
  readonly kind: 'INITIALIZING';
  /** When the first attempt was due: the retry budget counts from here. */
  readonly since: number;
}

/** Holds a valid identity; renewals may have failed, but not inside the expiry window. */
export interface Ready extends FailureRecord {
  readonly kind: 'READY';
  readonly identity: IdentityValidity;
  /** When this identity arrived (its renewal is planned from here). */
  readonly issuedAt: number;
  /** Whether the expiry window of this identity has begun. */
  readonly inExpiryWindow: boolean;
}

/** Inside the expiry window and the last renewal failed: still serving the current identity. */
export interface Degraded extends FailureRecord {
  readonly kind: 'DEGRADED';
  readonly identity: IdentityValidity;
  readonly issuedAt: number;
  readonly failures: number;
  readonly lastFailureAt: number;
  readonly lastError: string;
}

/** Terminal: serves no credentials; `/status` answers HALTED until the pod is restarted. */
interface Halted {
  readonly kind: 'HALTED';
  readonly since: number;
  readonly reason: HaltReason;
  readonly lastError?: string;
}

export type SidecarState = Initializing | Ready | Degraded | Halted;

export type SidecarEvent =
  /** A bootstrap or renewal succeeded: new key pairs and certificates are in place. */
  | { readonly type: 'IDENTITY_ISSUED'; readonly at: number; readonly identity: IdentityValidity }
  /** A bootstrap or renewal attempt failed (network, refusal, unusable answer, files not written). */
  | { readonly type: 'FETCH_FAILED'; readonly at: number; readonly error: string }
  /** The current identity entered its expiry window (planned deadline). */
  | { readonly type: 'EXPIRY_WINDOW_REACHED'; readonly at: number }
  /** The current identity's notAfter passed (planned deadline). */
  | { readonly type: 'IDENTITY_EXPIRED'; readonly at: number }
  /** The bootstrap retry budget ran out with no identity (planned deadline). */
  | { readonly type: 'RETRY_BUDGET_EXHAUSTED'; readonly at: number };

export type SidecarEventType = SidecarEvent['type'];

/** The state a sidecar starts in, at `at`. */
export function initialSidecarState(at: number): Initializing {
  return { kind: 'INITIALIZING', since: at, failures: 0 };
}

function ready(event: { at: number; identity: IdentityValidity }): Ready {
  return { kind: 'READY', identity: event.identity, issuedAt: event.at, inExpiryWindow: false, failures: 0 };
}

function halted(at: number, reason: HaltReason, lastError: string | undefined): Halted {
  return lastError === undefined ? { kind: 'HALTED', since: at, reason } : { kind: 'HALTED', since: at, reason, lastError };
}

/**
 * The transition function. Every (state, event) pair is decided here:
 *
 * INITIALIZING
 * - IDENTITY_ISSUED → READY (the first identity arrived).
 * - FETCH_FAILED → INITIALIZING, one more failure recorded (retried with back-off).
 * - RETRY_BUDGET_EXHAUSTED → HALTED (`RETRY_BUDGET_EXHAUSTED`): no identity within the budget.
 * - EXPIRY_WINDOW_REACHED, IDENTITY_EXPIRED → unchanged (no identity, so these are stale).
 *
 * READY
 * - IDENTITY_ISSUED → READY with the new identity, failures cleared, window not begun.
 * - FETCH_FAILED → DEGRADED when the expiry window has begun; otherwise READY with the failure
 *   recorded (a renewal failing early is retried without alarming anyone).
 * - EXPIRY_WINDOW_REACHED → DEGRADED when the last renewal failed; otherwise READY marked as in
 *   the window (a renewal may be on its way; its failure will degrade).
 * - IDENTITY_EXPIRED → HALTED (`IDENTITY_EXPIRED`): the certificates expired without renewal.
 * - RETRY_BUDGET_EXHAUSTED → unchanged (the budget is for bootstrap only).
 *
 * DEGRADED
 * - IDENTITY_ISSUED → READY (a renewal succeeded).
 * - FETCH_FAILED → DEGRADED with the failure recorded.
 * - EXPIRY_WINDOW_REACHED, RETRY_BUDGET_EXHAUSTED → unchanged.
 * - IDENTITY_EXPIRED → HALTED (`IDENTITY_EXPIRED`).
 *
 * HALTED is terminal: every event leaves it as it is. Leaving it would need a credential the
 * sidecar no longer has — the bootstrap token lives minutes, and an expired client certificate
 * cannot authenticate a renewal — so the way out is a new pod (a restarted pod gets a new
 * token). A sidecar that kept retrying would hide a broken pod behind a flapping status.
 */
export function sidecarTransition(state: SidecarState, event: SidecarEvent): SidecarState {
  switch (state.kind) {
    case 'INITIALIZING':
      return fromInitializing(state, event);
    case 'READY':
      return fromReady(state, event);
    case 'DEGRADED':
      return fromDegraded(state, event);
    case 'HALTED':
      return state;
  }
}

function fromInitializing(state: Initializing, event: SidecarEvent): SidecarState {
  switch (event.type) {
    case 'IDENTITY_ISSUED':
      return ready(event);
    case 'FETCH_FAILED':
      return { ...state, failures: state.failures + 1, lastFailureAt: event.at, lastError: event.error };
    case 'RETRY_BUDGET_EXHAUSTED':
      return halted(event.at, 'RETRY_BUDGET_EXHAUSTED', state.lastError);
    case 'EXPIRY_WINDOW_REACHED':
    case 'IDENTITY_EXPIRED':
      return state;
  }
}

function fromReady(state: Ready, event: SidecarEvent): SidecarState {
  switch (event.type) {
    case 'IDENTITY_ISSUED':
      return ready(event);
    case 'FETCH_FAILED': {
      const failed = { failures: state.failures + 1, lastFailureAt: event.at, lastError: event.error };
      return state.inExpiryWindow ? { kind: 'DEGRADED', identity: state.identity, issuedAt: state.issuedAt, ...failed } : { ...state, ...failed };
    }
    case 'EXPIRY_WINDOW_REACHED':
      return state.lastFailureAt !== undefined && state.lastError !== undefined
        ? { kind: 'DEGRADED', identity: state.identity, issuedAt: state.issuedAt, failures: state.failures, lastFailureAt: state.lastFailureAt, lastError: state.lastError }
        : { ...state, inExpiryWindow: true };
    case 'IDENTITY_EXPIRED':
      return halted(event.at, 'IDENTITY_EXPIRED', state.lastError);
    case 'RETRY_BUDGET_EXHAUSTED':
      return state;
  }
}

function fromDegraded(state: Degraded, event: SidecarEvent): SidecarState {
  switch (event.type) {
    case 'IDENTITY_ISSUED':
      return ready(event);
    case 'FETCH_FAILED':
      return { ...state, failures: state.failures + 1, lastFailureAt: event.at, lastError: event.error };
    case 'IDENTITY_EXPIRED':
      return halted(event.at, 'IDENTITY_EXPIRED', state.lastError);
    case 'EXPIRY_WINDOW_REACHED':
    case 'RETRY_BUDGET_EXHAUSTED':
      return state;
  }
}
