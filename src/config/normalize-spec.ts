import { ConfigError } from './errors.js';
import type { Spec } from './envelope.js';
import type { ConfigKind } from './kinds/index.js';
import { applyOneOfs } from './one-of.js';
import { validateAgainst } from './spec-schema.js';

/**
 * Pure over a copy of `raw`: the spec's schema (types, enums, ranges, unknown fields, scalar
 * defaults), then its one-of groups (at most one member; the default choice filled in), then
 * the kind's semantic rules. Throws InvalidArgument listing every problem with its field.
 */
export function normalizeSpec(kind: ConfigKind, raw: unknown): Spec {
  const spec = structuredClone(raw) as Spec;
  const schemaProblems = validateAgainst(kind.specSchema, spec, 'spec');
  if (schemaProblems.length > 0) throw ConfigError.invalid(schemaProblems.join('; '));
  const { problems } = applyOneOfs(spec, kind.oneOfs);
  if (problems.length > 0) throw ConfigError.invalid(problems.join('; '));
  const semantic = kind.validate?.(spec) ?? [];
  if (semantic.length > 0) throw ConfigError.invalid(semantic.join('; '));
  return spec;
}
