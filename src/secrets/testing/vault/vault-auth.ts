import { randomBytes } from 'node:crypto';

/** A Vault token of the test server: which paths it may use, and its lease. */
export interface TestToken {
  readonly id: string;
  /** Path patterns (without `/v1/`): exact, or a prefix ending in `*`. */
  readonly paths: readonly string[];
  readonly renewable: boolean;
  /** Seconds a renewal grants (Vault's token_ttl); 0 for a token that never expires. */
  readonly ttlSeconds: number;
  /** Milliseconds since the epoch; undefined for a token that never expires. */
  expiresAt?: number;
  /** Renewals never extend past this (Vault's token_max_ttl). */
  readonly maxExpiresAt?: number;
}

export interface TestAppRole {
  readonly name: string;
  readonly roleId: string;
  readonly secretIds: Set<string>;
  readonly tokenTtlSeconds: number;
  readonly tokenMaxTtlSeconds: number;
  readonly paths: readonly string[];
}

export interface TokenOptions {
  readonly paths?: readonly string[];
  /** 0 (default): never expires and is not renewable, like a root token. */
  readonly ttlSeconds?: number;
  readonly renewable?: boolean;
  readonly maxTtlSeconds?: number;
}

/** Tokens and AppRoles of the Vault test server, on an injected clock. */
export class VaultAuth {
  readonly tokens = new Map<string, TestToken>();
  readonly appRoles = new Map<string, TestAppRole>();

  constructor(
    private readonly now: () => number,
    private readonly random: (bytes: number) => Buffer = randomBytes,
  ) {}

  /** A token in Vault 1.10's service-token form (`hvs.` + random). */
  createToken(options: TokenOptions = {}): TestToken {
    const ttl = options.ttlSeconds ?? 0;
    const now = this.now();
    const token: TestToken = {
      id: `hvs.${this.random(18).toString('base64url')}`,
      paths: options.paths ?? ['*'],
      renewable: ttl > 0 && (options.renewable ?? true),
      ttlSeconds: ttl,
      ...(ttl > 0 ? { expiresAt: now + ttl * 1000 } : {}),
      ...(options.maxTtlSeconds === undefined ? {} : { maxExpiresAt: now + options.maxTtlSeconds * 1000 }),
    };
    this.tokens.set(token.id, token);
    return token;
  }

  /** The live token with this id, or undefined (unknown or expired). */
  lookup(id: string | undefined): TestToken | undefined {
    const token = id === undefined ? undefined : this.tokens.get(id);
    if (token === undefined) return undefined;
    if (token.expiresAt !== undefined && token.expiresAt <= this.now()) {
      this.tokens.delete(token.id);
      return undefined;
    }
    return token;
  }

  /** Extends a renewable token by its ttl (capped by its max ttl); resolves to the seconds left. */
  renew(token: TestToken): number {
    const now = this.now();
    const wanted = now + token.ttlSeconds * 1000;
    token.expiresAt = token.maxExpiresAt === undefined ? wanted : Math.min(wanted, token.maxExpiresAt);
    return Math.max(0, Math.round((token.expiresAt - now) / 1000));
  }

  revoke(id: string): void {
    this.tokens.delete(id);
  }

  createAppRole(name: string, options: { tokenTtlSeconds?: number; tokenMaxTtlSeconds?: number; paths?: readonly string[] } = {}): { roleId: string; secretId: string } {
    const role: TestAppRole = {
      name,
      roleId: this.random(16).toString('hex'),
      secretIds: new Set([this.random(16).toString('hex')]),
      tokenTtlSeconds: options.tokenTtlSeconds ?? 1200,
      tokenMaxTtlSeconds: options.tokenMaxTtlSeconds ?? 0,
      paths: options.paths ?? ['*'],
    };
    this.appRoles.set(role.roleId, role);
    return { roleId: role.roleId, secretId: [...role.secretIds][0] as string };
  }

  /** AppRole login: a renewable token with the role's ttl, or undefined for wrong credentials. */
  login(roleId: string, secretId: string): TestToken | undefined {
    const role = this.appRoles.get(roleId);
    if (role === undefined || !role.secretIds.has(secretId)) return undefined;
    return this.createToken({
      paths: role.paths,
      ttlSeconds: role.tokenTtlSeconds,
      renewable: true,
      ...(role.tokenMaxTtlSeconds > 0 ? { maxTtlSeconds: role.tokenMaxTtlSeconds } : {}),
    });
  }
}

/** Pure: may a token with these patterns use `path` (e.g. `secret/data/app`)? */
export function pathAllowed(patterns: readonly string[], path: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : p === path));
}
