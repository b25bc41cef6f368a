import { schema, type JsonSchema } from '../spec-schema.js';
import type { OneOfGroup } from '../one-of.js';

/**
 * A secret field of a configuration object: blindfolded (encrypted for the platform under a
 * secret policy) or clear (`string:///<base64>`, for what is not secret enough to seal).
 */
export function secretInfoSchema(description: string): JsonSchema {
  return schema.object(
    {
      blindfold_secret_info: schema.nullable(
        schema.object(
          {
            location: schema.string({ pattern: '^string:///[A-Za-z0-9+/=_-]+$', description: 'string:///<base64 blindfold ciphertext>' }),
            decryption_provider: schema.string(),
            store_provider: schema.string(),
          },
          ['location'],
        ),
      ),
      clear_secret_info: schema.nullable(
        schema.object({ url: schema.string({ pattern: '^string:///[A-Za-z0-9+/=]*$', description: 'string:///<base64 plaintext>' }), provider: schema.string() }, ['url']),
      ),
    },
    [],
    { description, nullable: true },
  );
}

/** The one-of of a secret field at `at` (no default: a secret must be given). */
export function secretInfoOneOf(at: readonly string[]): OneOfGroup {
  return { at, members: ['blindfold_secret_info', 'clear_secret_info'] };
}

/**
 * The fields of a secret field at `at` that are encrypted at rest: the clear secret's URL
 * (its plaintext, base64) and the blindfolded location (ciphertext already, for the platform
 * only; encrypted as well so no secret field is readable in the store file).
 */
export function secretInfoFields(at: readonly string[]): ReadonlyArray<readonly string[]> {
  return [
    [...at, 'clear_secret_info', 'url'],
    [...at, 'blindfold_secret_info', 'location'],
  ];
}
