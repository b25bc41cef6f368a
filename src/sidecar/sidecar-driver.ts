import type { LevelLogger } from '../observability/line-logger.js';
import type { Timers } from '../common/timers.js';
import { acceptIdentityBundle } from './accept-identity-bundle.js';
import { type IdentityOwner, writeIdentityFiles } from './identity-files.js';
import type { IdentityIssuer } from './identity-issuer.js';
import type { IdentityMaterial } from './identity-material.js';
import { createIdentityRequest, type IdentityRequest, type KeyAlgorithm } from './identity-request.js';
import { loadIdentityFiles } from './load-identity-files.js';
import { planNextAction } from './plan-next-action.js';
import type { SidecarPolicy } from './sidecar-policy.js';
import { initialSidecarState, type SidecarEvent, type SidecarState, sidecarTransition } from './sidecar-state.js';
import type { SidecarView } from './sidecar-view.js';

export interface SidecarDriverOptions {
  readonly issuer: IdentityIssuer;
  /** The folder the identity files are written to (and resumed from). */
  readonly identityDir: string;
  /** Whom the files are given to (default: the sidecar's own user, keys 0600). */
  readonly identityOwner?: IdentityOwner;
  readonly policy: SidecarPolicy;
  /** Wall-clock ms and one-shot timers; fake ones in tests. */
  readonly timers: Timers;
  /** Numbers in [0, 1) for the jitter of renewals and retries. */
  readonly random: () => number;
  readonly logger: LevelLogger;
  readonly keyAlgorithm?: KeyAlgorithm;
  /** Start from an identity an earlier run left in `identityDir` when it is still valid (default true). */
  readonly resume?: boolean;
}

/** Node timers overflow past 2^31 − 1 ms (24.8 days); longer waits are made of several. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

type StateListener = (state: SidecarState, previous: SidecarState) => void;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The I/O around the pure parts: keeps the state, asks `planNextAction` what to do after every
 * transition, sets timers for it, makes key pairs and CSRs, calls the issuer, checks the answer,
 * writes the files, and feeds the outcome back as events. Each identity gets new key pairs; the
 * retries of a failed request resend its never-certified CSRs. One request at a time; a
 * deadline can pass while a request is on its way. After `stop()` nothing more happens.
 */
export class SidecarDriver implements SidecarView {
  private state: SidecarState;
  private material: IdentityMaterial | undefined;
  private timers: Array<() => void> = [];
  private fetching: Promise<void> | undefined;
  /** Key pairs and CSRs not yet certified: retries send them again; a success discards them. */
  private request: Promise<IdentityRequest> | undefined;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly listeners = new Set<StateListener>();

  constructor(private readonly options: SidecarDriverOptions) {
    this.state = initialSidecarState(options.timers.now());
  }

  /** Resumes from the files when allowed and possible, then starts planning. */
  start(): void {
    if (this.options.resume !== false) this.resume();
    this.replan();
  }

  current(): SidecarState {
    return this.state;
  }

  /** The identity being served: only in READY and DEGRADED. */
  identity(): IdentityMaterial | undefined {
    return this.state.kind === 'READY' || this.state.kind === 'DEGRADED' ? this.material : undefined;
  }

  /** Calls `listener` after every change of state; returns the unsubscribe function. */
  onChange(listener: StateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once no request is on its way (tests drive fake time with it). */
  async settled(): Promise<void> {
    while (this.fetching !== undefined) await this.fetching;
  }

  /** Cancels the timers and the request on its way; resolves when it has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimers();
    this.abort.abort();
    await this.settled();
  }

  /** Stopped or HALTED: an identity arriving now is not taken. */
  private finished(): boolean {
    return this.stopped || this.state.kind === 'HALTED';
  }

  private resume(): void {
    const loaded = loadIdentityFiles(this.options.identityDir, this.options.timers.now());
    if ('reason' in loaded) return void this.options.logger.debug({ reason: loaded.reason }, 'no identity to resume');
    this.material = loaded.material;
    this.options.logger.info({ dir: this.options.identityDir, notAfter: new Date(loaded.material.validity.notAfter).toISOString() }, 'resumed the identity left by an earlier run');
    this.dispatch({ type: 'IDENTITY_ISSUED', at: this.options.timers.now(), identity: loaded.material.validity }, false);
  }

  private dispatch(event: SidecarEvent, replan = true): void {
    const previous = this.state;
    this.state = sidecarTransition(previous, event);
    if (this.state === previous) return;
    if (this.state.kind !== previous.kind) this.logTransition(previous, event);
    for (const listener of this.listeners) listener(this.state, previous);
    if (replan) this.replan();
  }

  private logTransition(previous: SidecarState, event: SidecarEvent): void {
    const fields = { from: previous.kind, to: this.state.kind, event: event.type, ...('lastError' in this.state ? { lastError: this.state.lastError } : {}) };
    const level = this.state.kind === 'DEGRADED' || this.state.kind === 'HALTED' ? 'warn' : 'info';
    this.options.logger[level](fields, `sidecar ${this.state.kind}`);
  }

  private cancelTimers(): void {
    for (const cancel of this.timers) cancel();
    this.timers = [];
  }

  private replan(): void {
    this.cancelTimers();
    if (this.stopped) return;
    const { timers, policy, random } = this.options;
    const plan = planNextAction(this.state, policy, random);
    const { fetch, deadline } = plan;
    if (fetch !== undefined && this.fetching === undefined) {
      this.scheduleAt(fetch.at, () => this.startFetch(fetch.kind));
      this.options.logger.debug({ request: fetch.kind, at: new Date(fetch.at).toISOString() }, 'next identity request planned');
    }
    if (deadline !== undefined) this.scheduleAt(deadline.at, () => this.dispatch({ type: deadline.event, at: timers.now() }));
  }

  private scheduleAt(at: number, fire: () => void): void {
    const delay = at - this.options.timers.now();
    const next = delay > LONGEST_TIMER_MS ? () => this.scheduleAt(at, fire) : fire;
    this.timers.push(this.options.timers.schedule(next, Math.min(delay, LONGEST_TIMER_MS)));
  }

  private startFetch(kind: 'bootstrap' | 'renew'): void {
    if (this.fetching !== undefined || this.stopped) return;
    this.fetching = this.fetch(kind);
  }

  private async fetch(kind: 'bootstrap' | 'renew'): Promise<void> {
    let event: SidecarEvent;
    try {
      const material = await this.obtain(kind);
      if (this.finished()) return;
      await writeIdentityFiles(this.options.identityDir, material, this.options.identityOwner);
      // A deadline may have halted it, or stop() been called, while the files were written.
      if (this.finished()) return;
      this.material = material;
      this.request = undefined;
      const { notBefore, notAfter } = material.validity;
      this.options.logger.info({ request: kind, notBefore: new Date(notBefore).toISOString(), notAfter: new Date(notAfter).toISOString() }, 'identity issued');
      event = { type: 'IDENTITY_ISSUED', at: this.options.timers.now(), identity: material.validity };
    } catch (error) {
      if (this.stopped) return;
      this.options.logger.warn({ request: kind, error: messageOf(error) }, 'identity request failed');
      event = { type: 'FETCH_FAILED', at: this.options.timers.now(), error: messageOf(error) };
    } finally {
      this.fetching = undefined;
    }
    this.dispatch(event);
  }

  /** The key pairs and CSRs to send: the uncertified ones of a failed attempt, or new ones. */
  private async pendingRequest(): Promise<IdentityRequest> {
    this.request ??= createIdentityRequest(this.options.keyAlgorithm);
    try {
      return await this.request;
    } catch (error) {
      this.request = undefined;
      throw error;
    }
  }

  private async obtain(kind: 'bootstrap' | 'renew'): Promise<IdentityMaterial> {
    const { issuer } = this.options;
    const current = this.material;
    const request = await this.pendingRequest();
    const bundle =
      kind === 'bootstrap' || current === undefined
        ? await issuer.bootstrap(request.csrs, this.abort.signal)
        : await issuer.renew(request.csrs, { certificate: current.clientCertificate + current.chain, key: current.clientKey }, this.abort.signal);
    return acceptIdentityBundle(request, bundle, this.options.timers.now());
  }
}
