import { fieldError, type StatusCause, StatusError } from '../errors/status-error.js';

/** kube's limit on `fieldManager` (`FieldManagerMaxLength`), in bytes. */
const FIELD_MANAGER_MAX_LENGTH = 128;

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');
const isPrintable = (ch: string): boolean => /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch);

/** kube's `ValidateFieldManager`: at most 128 bytes, printable characters only (positions in bytes). */
function fieldManagerCauses(fieldManager: string | undefined): StatusCause[] {
  if (fieldManager === undefined) return [];
  const causes: StatusCause[] = [];
  if (utf8Length(fieldManager) > FIELD_MANAGER_MAX_LENGTH) causes.push(fieldError.tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of fieldManager) {
    if (!isPrintable(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      causes.push(fieldError.invalid('fieldManager', fieldManager, `invalid character U+${code} (at position ${position})`));
    }
    position += utf8Length(ch);
  }
  return causes;
}

/**
 * kube-apiserver's PatchOptions check (422 `PatchOptions.meta.k8s.io "" is invalid: …`):
 * apply requires `fieldManager`, other patch types refuse `force` (given in any form), and
 * the manager must be valid. `undefined` when the options are fine.
 */
export function validatePatchOptions(o: { apply: boolean; fieldManager: string | undefined; force: string | undefined }): StatusError | undefined {
  const causes: StatusCause[] = [];
  if (!o.apply && o.force !== undefined) causes.push(fieldError.forbidden('force', 'may not be specified for non-apply patch'));
  if (o.apply && (o.fieldManager === undefined || o.fieldManager === '')) causes.push(fieldError.required('fieldManager', 'is required for apply patch'));
  causes.push(...fieldManagerCauses(o.fieldManager));
  return optionsInvalid('PatchOptions', causes);
}

/** The same manager check for CreateOptions and UpdateOptions. */
export function validateWriteOptions(kind: 'CreateOptions' | 'UpdateOptions', fieldManager: string | undefined): StatusError | undefined {
  return optionsInvalid(kind, fieldManagerCauses(fieldManager));
}

function optionsInvalid(kind: string, causes: readonly StatusCause[]): StatusError | undefined {
  if (causes.length === 0) return undefined;
  const error = StatusError.invalid({ kind, group: 'meta.k8s.io' }, '', causes);
  // kube omits the empty name from details.
  return new StatusError('Invalid', error.message, { group: 'meta.k8s.io', kind, causes });
}

/**
 * The manager of a write (kube's `managerOrUserAgent`): the `fieldManager` parameter, else the
 * User-Agent up to its first `/`, printable characters only, cut to 128 bytes.
 */
export function managerFromRequest(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== '') return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  for (const ch of prefix) {
    if (!isPrintable(ch)) continue;
    if (utf8Length(out) + utf8Length(ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}
