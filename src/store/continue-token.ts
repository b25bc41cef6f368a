import { StoreError } from './errors.js';
import { checkLimit, checkPrefix, checkRevision } from './keys.js';
import type { ListOptions, Revision } from './types.js';

/** Where a paginated list resumes: after `lastKey`, at snapshot `revision`. */
export interface ContinuePosition {
  readonly revision: Revision;
  readonly lastKey: string;
  readonly prefix: string;
}

/** Encodes a list position as an opaque URL-safe token. */
export function encodeContinue(position: ContinuePosition): string {
  const body = JSON.stringify({ v: 1, rv: position.revision, start: position.lastKey, prefix: position.prefix });
  return Buffer.from(body, 'utf8').toString('base64url');
}

/** Decodes a token made by {@link encodeContinue} for the same prefix; `InvalidArgument` otherwise. */
function decodeContinue(token: string, prefix: string): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw StoreError.invalid('continue token is not valid: not base64url-encoded JSON');
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown; prefix?: unknown } | null;
  if (
    p === null ||
    typeof p !== 'object' ||
    p.v !== 1 ||
    typeof p.rv !== 'number' ||
    !Number.isSafeInteger(p.rv) ||
    p.rv < 0 ||
    typeof p.start !== 'string' ||
    typeof p.prefix !== 'string'
  ) {
    throw StoreError.invalid('continue token is not valid: unexpected contents');
  }
  if (p.prefix !== prefix) {
    throw StoreError.invalid(`continue token was issued for prefix "${p.prefix}", not "${prefix}"`);
  }
  if (!p.start.startsWith(prefix)) throw StoreError.invalid('continue token is not valid: key outside prefix');
  return { revision: p.rv, lastKey: p.start, prefix };
}

/**
 * Checks a list call's arguments (the same for every backend) and decodes its continue
 * token. Resolves to where the page starts: undefined for a first page.
 */
export function checkListArguments(prefix: string, options: ListOptions): ContinuePosition | undefined {
  checkPrefix(prefix);
  checkLimit(options.limit);
  if (options.revision !== undefined) checkRevision(options.revision, 'list revision');
  if (options.continue !== undefined && options.revision !== undefined) {
    throw StoreError.invalid('list takes either a continue token or a revision, not both');
  }
  return options.continue === undefined ? undefined : decodeContinue(options.continue, prefix);
}
