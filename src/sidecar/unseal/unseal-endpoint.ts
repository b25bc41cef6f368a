import type { LevelLogger } from '../../observability/line-logger.js';
import { notReadyResponse, type SidecarEndpoint, type SidecarRequest, type SidecarResponse, TEXT, textResponse } from '../sidecar-endpoint.js';
import type { SidecarView } from '../sidecar-view.js';
import { isJsonContentType } from './json-content-type.js';
import type { SidecarUnsealer, UnsealSource } from './sidecar-unsealer.js';
import type { IdentityMaterial } from '../identity-material.js';
import { UnsealError } from './unseal-error.js';
import { unsealFailureOf } from './unseal-failure.js';
import type { UnsealRequest } from './unseal-request.js';
import { UnsealRequestMemo } from './unseal-request-memo.js';

const UNSEAL_URL = '/secret/unseal';

const NO_STORE: Readonly<Record<string, string>> = { 'cache-control': 'no-store' };
/** A secret is never kept by an HTTP cache nor sniffed as anything but text. */
const SECRET_HEADERS: Readonly<Record<string, string>> = { 'content-type': TEXT, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/** What the log says about a request: its type and where it went, never the secret or the location. */
function logFields(request: UnsealRequest | undefined): Record<string, string> {
  if (request === undefined) return {};
  return request.type === 'vault'
    ? { type: 'vault', provider: request.provider, location: request.location, ...(request.key === undefined ? {} : { key: request.key }), ...(request.version === undefined ? {} : { version: request.version }) }
    : { type: 'blindfold', encoding: request.encoding };
}

/**
 * `POST /secret/unseal` (the seed's unseal request). In order: `content-type` must be
 * `application/json` (415), the body a valid request (400; a body seen recently is not
 * parsed again: {@link UnsealRequestMemo}) — a malformed request never
 * succeeds, so it is refused whatever the state — then the sidecar must serve an identity
 * (READY or DEGRADED; else 503 with the state). Success is 200 `text/plain`: the Base64 of
 * the secret's bytes, nothing else (no newline). Failures are `text/plain` with one line:
 * the platform's message or what is wrong (`unsealFailureOf`). Logs carry the request's
 * type, provider and path, the outcome and where the answer came from, never the secret,
 * the location (a ciphertext) or a credential.
 */
export function unsealEndpoint(unsealer: SidecarUnsealer, logger: LevelLogger): SidecarEndpoint {
  const refuse = (error: unknown, parsed: UnsealRequest | undefined): SidecarResponse => {
    const failure = unsealFailureOf(error, parsed?.type);
    const fields = { ...logFields(parsed), status: failure.status, code: failure.code, ...(failure.detail === undefined ? {} : { detail: failure.detail }) };
    if (failure.status >= 500) logger.warn(fields, 'unseal failed');
    else logger.info({ ...fields, error: failure.message }, 'unseal refused');
    return textResponse(failure.status, `${failure.message}\n`, NO_STORE);
  };
  const debug = logger.isLevelEnabled('debug'); // the level is fixed for the sidecar's life
  const requests = new UnsealRequestMemo();
  const answer = (parsed: UnsealRequest, base64: string, source: UnsealSource): SidecarResponse => {
    if (debug) logger.debug({ ...logFields(parsed), status: 200, source }, 'unsealed');
    return { status: 200, headers: SECRET_HEADERS, body: base64 };
  };
  const fromUnsealer = async (parsed: UnsealRequest, identity: IdentityMaterial): Promise<SidecarResponse> => {
    try {
      const unsealed = await unsealer.unseal(parsed, identity);
      const base64 = unsealed.bytes.toString('base64');
      unsealed.bytes.fill(0);
      return answer(parsed, base64, unsealed.source);
    } catch (error) {
      return refuse(error, parsed);
    }
  };
  return {
    method: 'POST',
    url: UNSEAL_URL,
    display: UNSEAL_URL,
    // Synchronous up to the cache: a hit is answered in the same turn, with no promise (the
    // hot path of a sidecar, measured by `npm run bench -- unseal`); anything else awaits.
    handle: (request: SidecarRequest, view: SidecarView) => {
      let parsed: UnsealRequest | undefined;
      try {
        const contentType = request.headers['content-type'];
        if (!isJsonContentType(contentType)) {
          throw new UnsealError(
            'UnsupportedMediaType',
            `${contentType === undefined ? 'no content-type was sent' : `content-type ${JSON.stringify(contentType)} is not supported`}: POST ${UNSEAL_URL} takes a JSON body with content-type: application/json`,
          );
        }
        parsed = requests.parse(request.body);
        const identity = view.identity();
        if (identity === undefined) {
          logger.debug({ ...logFields(parsed), status: 503, state: view.current().kind }, 'unseal refused: not ready');
          return notReadyResponse(view.current().kind, NO_STORE);
        }
        const cached = unsealer.cachedBase64(parsed);
        if (cached !== undefined) return answer(parsed, cached, 'cache');
        return fromUnsealer(parsed, identity);
      } catch (error) {
        return refuse(error, parsed);
      }
    },
  };
}
