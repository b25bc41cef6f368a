/**
 * Secrets (issue 7): blindfold encryption (per-tenant versioned RSA-3072 keys, JWE compact
 * RSA-OAEP-256 + A256GCM bound to tenant, key version and policy), secret policies, unseal
 * for pods, secret fields of configuration objects, and the Vault client. docs/SECRETS.md.
 */
export type { KeySealer, PodCertificateVerifier, PodIdentity } from './ports.js';
export { SecretError, SECRET_HTTP_STATUS, UNSEAL_MESSAGES, type SecretErrorCode, type UnsealErrorCode } from './secret-error.js';
export { parseBlindfold, wrapLocation, type BlindfoldHeader, type ParsedBlindfold } from './blindfold-format.js';
export { blindfoldEncrypt, type BlindfoldTarget } from './blindfold-encrypt.js';
export { encryptionTargetFrom, DocumentError } from './encryption-target.js';
export { BlindfoldKeyRing, type PublicBlindfoldKey } from './blindfold-key-ring.js';
export { BlindfoldUnsealer, type ConfigSource, type UnsealResult } from './blindfold-unsealer.js';
export { evaluatePolicy, ruleMatches, type PolicyCaller, type PolicyDecision, type SecretPolicySpec } from './policy-evaluation.js';
export { clientNameOf, policyCallerOf } from './client-name.js';
export { publicKeyDocument, type PublicKeyDocument } from './public-key-document.js';
export { policyDocument, type PolicyDocument } from './policy-document.js';
export { cacheTimeoutSeconds } from './cache-timeout.js';
export { decodeSecret, EncodingError, parseEncodingType, type EncodingType } from './encoding-type.js';
export { resolveSecretField, decodeStringUrl, type ResolvedSecret } from './secret-field.js';
export { resolveProvider } from './provider-resolver.js';
export { type ResolvedProvider, type ResolvedVaultAuth } from './resolved-provider.js';
export { BUILTIN_POLICY_NAME, ensureBuiltinSecretPolicy } from '../config/builtin-secret-policy.js';
export { createSecretService, type SecretService, type SecretServiceOptions } from './secret-service.js';
export { registerSecretApi } from './http/secret-routes.js';
export { type SecretApiDependencies } from './http/secret-api-types.js';
export type { UnsealAnswer } from './http/pod-handlers.js';
export { VaultClient, type VaultReadRequest, type VaultReadResult } from './vault/vault-client.js';
export { vaultConnectionOf, type VaultConnection, type VaultCredentials } from './vault/vault-connection.js';
export { VaultError, VAULT_HTTP_STATUS, type VaultErrorCode } from './vault/vault-error.js';
