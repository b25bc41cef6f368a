import { type StatusCause, StatusError } from '../errors/status-error.js';
import { compareGoStrings, goQuote } from './go-format.js';
import { parseManagerIdentifier } from './managed-fields.js';
import { pathString } from './path-element.js';
import type { ValidationError } from './validation-errors.js';

/** One field another manager owns and the apply would change. */
export interface ApplyConflict {
  readonly manager: string;
  readonly operation?: 'Apply' | 'Update';
  /** Set for updaters: the version they wrote with (appliers are not per version). */
  readonly apiVersion?: string;
  /** The field as kube prints it, e.g. `.spec.replicas` or `.spec.template.spec.containers[name="nginx"].image`. */
  readonly path: string;
}

/** kube's `printManager`: `"name" using <apiVersion>` for updaters, `"name"` for appliers. */
function describeManager(c: Pick<ApplyConflict, 'manager' | 'operation' | 'apiVersion'>): string {
  return c.operation === 'Update' ? `${goQuote(c.manager)} using ${c.apiVersion ?? ''}` : goQuote(c.manager);
}

/**
 * A server-side apply that would change fields other managers own, without `force`. The
 * message is kube-apiserver 1.17's: `Apply failed with 1 conflict: conflict with "m" using
 * apps/v1: .spec.replicas`, or for several, per manager in identifier order:
 * `Apply failed with 2 conflicts: conflicts with "a":\n- .x\nconflicts with "b" …`.
 */
export class ApplyConflictError extends Error {
  override readonly name = 'ApplyConflictError';
  constructor(readonly conflicts: readonly ApplyConflict[]) {
    super(conflictMessage(conflicts));
  }
}

/** Builds the conflicts from paths per manager identifier (in identifier order, paths in set order). */
export function conflictsFromManagers(paths: ReadonlyMap<string, readonly string[]>): ApplyConflict[] {
  return [...paths]
    .sort(([a], [b]) => compareGoStrings(a, b))
    .flatMap(([id, list]) => list.map((path) => ({ ...parseManagerIdentifier(id), path })));
}

function conflictMessage(conflicts: readonly ApplyConflict[]): string {
  const [first] = conflicts;
  if (conflicts.length === 1 && first !== undefined) return `Apply failed with 1 conflict: conflict with ${describeManager(first)}: ${first.path}`;
  const lines: string[] = [];
  let previous: string | undefined;
  for (const c of conflicts) {
    const who = describeManager(c);
    if (who !== previous) lines.push(`conflicts with ${who}:`);
    previous = who;
    lines.push(`- ${c.path}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * The 409 Conflict Status kube returns for an apply conflict: the error's message and one
 * `FieldManagerConflict` cause per field (`message: conflict with "m" using v`, `field: .path`).
 */
export function applyConflictStatus(error: ApplyConflictError): StatusError {
  // 'FieldManagerConflict' is a metav1 cause type the shared CauseType union does not list yet.
  const causes = error.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeManager(c)}`, field: c.path }) as unknown as StatusCause);
  return new StatusError('Conflict', error.message, { causes });
}

/**
 * A failure kube-apiserver reports as a plain error: HTTP 500 with a Status that has no
 * reason (kubectl prints `Error from server: <message>`), e.g. `failed to create typed live
 * object: …` — the server's own state, not the request, is at fault.
 */
export class ApplyFailedError extends StatusError {
  constructor(message: string) {
    super('InternalError', message);
  }

  override toStatus(): Record<string, unknown> {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, code: this.code };
  }
}

/**
 * 422 Invalid for an applied configuration the schema rejects (a value of the wrong type, a
 * field the kind does not declare, an associative list item without its key): the client's
 * mistake, with one `FieldValueInvalid` cause per problem naming its field path
 * (`spec.replicas`, `spec.template.spec.containers[name="c"].ports`). kube-apiserver 1.17
 * answered these with a reasonless 500 (`failed to create typed patch object: …`).
 */
export function invalidApplyConfiguration(errors: readonly ValidationError[], target: { apiVersion: string; kind: string; name: string }): StatusError {
  const slash = target.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : target.apiVersion.slice(0, slash);
  const causes = errors.map((e): StatusCause => ({ reason: 'FieldValueInvalid', message: e.message, field: pathString(e.path).replace(/^\./, '') }));
  return StatusError.invalid({ kind: target.kind, group }, target.name, causes);
}

/**
 * 409 Conflict for an apply to a stored object the schema cannot type (1.17 accepts a
 * StatefulSet whose template has a container without a name, as it does not validate that
 * template; apply then cannot key the list): the object must be corrected by an update first.
 * One cause per problem names its field path. kube-apiserver 1.17 answered a reasonless 500
 * (`failed to create typed live object: …`).
 */
export function untypedLiveObject(errors: readonly ValidationError[], target: { apiVersion: string; kind: string; name: string }): StatusError {
  const slash = target.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : target.apiVersion.slice(0, slash);
  const causes = errors.map((e): StatusCause => ({ reason: 'FieldValueInvalid', message: e.message, field: pathString(e.path).replace(/^\./, '') }));
  const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const qualified = group === '' ? target.kind : `${target.kind}.${group}`;
  return new StatusError('Conflict', `Operation cannot be fulfilled on ${qualified} "${target.name}": the stored object cannot be applied to (${summary}); correct it with an update or patch first`, {
    name: target.name,
    ...(group === '' ? {} : { group }),
    kind: target.kind,
    causes,
  });
}
