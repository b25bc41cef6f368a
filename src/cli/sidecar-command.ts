import { untilSignal } from './until-signal.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { SIDECAR_PORT } from '../api/sidecar-injection.js';
import { type ConnectTo, parseConnectTo } from '../client/connect-to.js';
import { createLineLogger } from '../observability/line-logger.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat } from '../observability/log-options.js';
import { DEFAULT_IDENTITY_DIR, type IdentityOwner, DEFAULT_SECRET_CACHE_LIMITS, MAX_SECRET_CACHE_ENTRIES, DEFAULT_SIDECAR_POLICY, KEY_ALGORITHMS, type KeyAlgorithm, startSidecar } from '../sidecar/index.js';

interface SidecarOptions {
  server?: string;
  tokenFile?: string;
  identityDir: string;
  identityOwner?: IdentityOwner;
  listen?: string[];
  caFile?: string;
  connectTo?: ConnectTo;
  stateFile?: string;
  lifetimeFraction: number;
  renewalJitter: number;
  expiryWindow: number;
  retryBudget: number;
  backoff: number;
  maxBackoff: number;
  keyAlgorithm: KeyAlgorithm;
  resume: boolean;
  unsealCacheBytes: number;
  unsealCacheEntries: number;
  logLevel: string;
  logFormat: LogFormat;
}

/** `500ms`, `30s`, `5m`, `1h` (a bare number is seconds) → milliseconds. */
export function parseDurationMs(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (match === null) throw new InvalidArgumentError(`"${value}" is not a duration like 500ms, 30s, 5m or 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] ?? 1000;
  return Math.round(Number(match[1]) * unit);
}

function fraction(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('must be a number between 0 and 1');
  return n;
}

const seconds = (ms: number): string => `${ms / 1000}s`;

function wholeNumber(value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError('must be a whole number (0 or more)');
  return Number(value);
}

function cacheEntries(value: string): number {
  const n = wholeNumber(value);
  if (n > MAX_SECRET_CACHE_ENTRIES) throw new InvalidArgumentError(`must be at most ${MAX_SECRET_CACHE_ENTRIES}`);
  return n;
}

/** `<uid>:<gid>` → the owner the identity files are given to. */
export function parseIdentityOwner(value: string): IdentityOwner {
  const match = /^(\d{1,10}):(\d{1,10})$/.exec(value.trim());
  const [uid, gid] = [Number(match?.[1]), Number(match?.[2])];
  if (match === null || uid > 0xfffffffe || gid > 0xfffffffe) throw new InvalidArgumentError(`"${value}" is not <uid>:<gid> (numbers, e.g. 1000:1000)`);
  return { uid, gid };
}

function connectTo(value: string): ConnectTo {
  try {
    return parseConnectTo(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

/** `edgeplane sidecar`: the pod's identity sidecar. */
export function sidecarCommand(): Command {
  const p = DEFAULT_SIDECAR_POLICY;
  return new Command('sidecar')
    .description("Run the workload sidecar: fetch the pod's x.509 identity with a bootstrap token, keep it renewed, write it to the identity folder and serve it on loopback; unseal secrets for the workload.")
    .addOption(new Option('--server <url>', 'control plane URL').env('EDGEPLANE_SERVER'))
    .addOption(new Option('--token-file <file>', 'file holding the bootstrap token (read again at each attempt)').env('EDGEPLANE_TOKEN_FILE'))
    .addOption(new Option('--identity-dir <dir>', 'folder the identity files are written to').env('EDGEPLANE_IDENTITY_DIR').default(DEFAULT_IDENTITY_DIR))
    .addOption(
      new Option('--identity-owner <uid:gid>', 'give the identity files to this user and group, keys 0640 so the group reads them too (needs CAP_CHOWN); default: the sidecar\'s own user, keys 0600')
        .env('EDGEPLANE_IDENTITY_OWNER')
        .argParser(parseIdentityOwner),
    )
    .addOption(new Option('--listen <host:port>', `loopback address to serve on; repeat for several (default 127.0.0.1:${SIDECAR_PORT}, and [::1]:${SIDECAR_PORT} when the host has it)`).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]))
    .addOption(new Option('--ca-file <file>', "CA bundle to trust for the control plane (default: its CA, checked against the token's ca_pin)"))
    .addOption(
      new Option('--connect-to <host:port>', "open every connection to --server here instead (a relay, e.g. the site agent's on the pod network), still checking the server certificate against --server's host, like curl --connect-to")
        .env('EDGEPLANE_CONNECT_TO')
        .argParser(connectTo),
    )
    .addOption(new Option('--state-file <file>', 'keep this file equal to the state: {"state","since","reason"?} JSON, replaced atomically (mode 0600) at start and on every change').env('EDGEPLANE_STATE_FILE'))
    .addOption(new Option('--lifetime-fraction <f>', 'renew after this fraction of the lifetime').default(p.lifetimeFraction).argParser(fraction))
    .addOption(new Option('--renewal-jitter <f>', 'spread of the renewal time, ± this fraction of the lifetime').default(p.renewalJitter).argParser(Number))
    .addOption(new Option('--expiry-window <f>', 'fraction of the lifetime before expiry in which a failed renewal means DEGRADED').default(p.expiryWindowFraction).argParser(fraction))
    .addOption(new Option('--retry-budget <duration>', 'how long bootstrap may fail before HALTED').default(p.retryBudgetMs, seconds(p.retryBudgetMs)).argParser(parseDurationMs))
    .addOption(new Option('--backoff <duration>', 'first retry delay, doubled per failure').default(p.backoffBaseMs, seconds(p.backoffBaseMs)).argParser(parseDurationMs))
    .addOption(new Option('--max-backoff <duration>', 'longest retry delay').default(p.backoffMaxMs, seconds(p.backoffMaxMs)).argParser(parseDurationMs))
    .addOption(new Option('--key-algorithm <algorithm>', "algorithm of the pod's key pairs").choices(KEY_ALGORITHMS).default('ECDSA_P256'))
    .addOption(new Option('--no-resume', 'ignore an identity an earlier run left in the folder'))
    .addOption(new Option('--unseal-cache-bytes <n>', 'most bytes of decrypted secrets kept in memory (values + keys + 64 per entry; least recently used dropped first)').default(DEFAULT_SECRET_CACHE_LIMITS.maxBytes).argParser(wholeNumber))
    .addOption(new Option('--unseal-cache-entries <n>', `most decrypted secrets kept in memory (0 turns the cache off; at most ${MAX_SECRET_CACHE_ENTRIES})`).default(DEFAULT_SECRET_CACHE_LIMITS.maxEntries).argParser(cacheEntries))
    .addOption(new Option('--log-level <level>', 'least severe level logged').choices(LOG_LEVELS).env('EDGEPLANE_LOG_LEVEL').default('info'))
    .addOption(new Option('--log-format <format>', 'auto: readable lines on a terminal, JSON otherwise').choices(LOG_FORMATS).env('EDGEPLANE_LOG_FORMAT').default('auto'))
    .addHelpText(
      'after',
      `
Endpoints (no credentials; loopback only):
  GET /status                                          200 text/plain: INITIALIZING, READY, DEGRADED or HALTED
  GET /creds/pki/{server|client}/{key|cert|cert-only}  PEM key, chain or leaf (503 unless READY or DEGRADED)
  GET /trust/pki/{server_ca|client_ca}                 PEM CA bundle (503 unless READY or DEGRADED)
  POST /secret/unseal                                  content-type: application/json, body
      {"type": "blindfold", "location": "string:///…", "encoding_type"?: "EncodingNone"|"EncodingBase64"}
      {"type": "vault", "provider": P, "location": "v1/secret/data/app", "key"?, "version"?, "encoding_type"?}
    200 text/plain: the Base64 of the secret; 400/403/404/415/5xx text/plain: why (docs/SIDECAR.md).
    Blindfold values are kept in memory for their policy's decrypt_cache_timeout.

Files in the identity folder: server.key, client.key (0600; 0640 with --identity-owner),
server.crt, client.crt (leaf + chain), server_ca.crt, client_ca.crt (0644). The sidecar runs until SIGINT or SIGTERM.

--connect-to: the identity requests, the CA fetch and unseal calls dial host:port; SNI, Host and
the certificate check use --server's host (no SNI when that is an IP address). Vault is dialled
at its provider's own endpoint.
--state-file, e.g. {"state":"HALTED","since":"2024-05-01T10:00:00.000Z","reason":"RETRY_BUDGET_EXHAUSTED: …"}:
the word of GET /status; reason only for DEGRADED (the last error) and HALTED. Written as
<file>.<pid>.tmp then renamed; its folder is created when missing.

Writes nothing but the identity folder (temporary <name>.<pid>.tmp files there), the state
file's folder, and no file elsewhere: it runs on a read-only root file system.`,
    )
    .action(async (o: SidecarOptions) => {
      if (o.server === undefined || o.tokenFile === undefined) throw new Error('sidecar needs --server and --token-file (run `edgeplane sidecar --help`)');
      const logger = createLineLogger({ level: o.logLevel, name: 'edgeplane-sidecar', format: o.logFormat });
      const sidecar = await startSidecar({
        server: o.server,
        tokenFile: o.tokenFile,
        identityDir: o.identityDir,
        ...(o.identityOwner === undefined ? {} : { identityOwner: o.identityOwner }),
        ...(o.listen === undefined ? {} : { listen: o.listen }),
        ...(o.caFile === undefined ? {} : { caFile: o.caFile }),
        ...(o.connectTo === undefined ? {} : { connectTo: o.connectTo }),
        ...(o.stateFile === undefined ? {} : { stateFile: o.stateFile }),
        policy: {
          lifetimeFraction: o.lifetimeFraction,
          renewalJitter: o.renewalJitter,
          expiryWindowFraction: o.expiryWindow,
          retryBudgetMs: o.retryBudget,
          backoffBaseMs: o.backoff,
          backoffMaxMs: o.maxBackoff,
        },
        keyAlgorithm: o.keyAlgorithm,
        resume: o.resume,
        unsealCache: { maxBytes: o.unsealCacheBytes, maxEntries: o.unsealCacheEntries },
        logger,
      });
      await untilSignal(() => sidecar.stop(), logger);
    });
}
