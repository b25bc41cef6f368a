import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123SubdomainProblems } from '../../apimachinery/validation/names.js';
import { ENV_FIELD_PATHS, validateFieldRef, validateResourceFieldRef } from './pod-spec-downward.js';
import { configMapKeyProblems, envVarNameProblems } from './pod-spec-syntax.js';
import type { EnvFromSource, EnvVar } from '../../api/pod-spec-types.js';

/** ValidateEnv (1.17): names are env var names; valueFrom has exactly one source and no `value`. */
export function validateEnv(vars: readonly EnvVar[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  vars.forEach((env, i) => {
    const at = `${field}[${i}]`;
    const name = env.name ?? '';
    if (name === '') causes.push(fieldError.required(`${at}.name`));
    else causes.push(...envVarNameProblems(name).map((p) => fieldError.invalid(`${at}.name`, name, p)));
    causes.push(...validateValueFrom(env, `${at}.valueFrom`));
  });
  return causes;
}

function validateValueFrom(env: EnvVar, field: string): StatusCause[] {
  const from = env.valueFrom;
  if (from == null) return [];
  const causes: StatusCause[] = [];
  let sources = 0;
  if (from.fieldRef != null) {
    sources++;
    causes.push(...validateFieldRef(from.fieldRef, ENV_FIELD_PATHS, `${field}.fieldRef`));
  }
  if (from.resourceFieldRef != null) {
    sources++;
    causes.push(...validateResourceFieldRef(from.resourceFieldRef, `${field}.resourceFieldRef`, false));
  }
  if (from.configMapKeyRef != null) {
    sources++;
    causes.push(...validateKeySelector(from.configMapKeyRef, `${field}.configMapKeyRef`));
  }
  if (from.secretKeyRef != null) {
    sources++;
    causes.push(...validateKeySelector(from.secretKeyRef, `${field}.secretKeyRef`));
  }
  if (sources === 0) causes.push(fieldError.invalid(field, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if ((env.value ?? '') !== '') causes.push(fieldError.invalid(field, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1) causes.push(fieldError.invalid(field, '', 'may not have more than one field specified at a time'));
  return causes;
}

function validateKeySelector(selector: { name?: string; key?: string }, field: string): StatusCause[] {
  const name = selector.name ?? '';
  const causes = dns1123SubdomainProblems(name).map((p) => fieldError.invalid(`${field}.name`, name, p));
  const key = selector.key ?? '';
  if (key === '') causes.push(fieldError.required(`${field}.key`));
  else causes.push(...configMapKeyProblems(key).map((p) => fieldError.invalid(`${field}.key`, key, p)));
  return causes;
}

/** NameIsDNSSubdomain with prefix=true: a trailing `-` is allowed (a generated suffix follows). */
function prefixNameProblems(name: string): string[] {
  return dns1123SubdomainProblems(name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);
}

/** ValidateEnvFrom: prefix is an env var name; exactly one of configMapRef and secretRef. */
export function validateEnvFrom(sources: readonly EnvFromSource[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  sources.forEach((source, i) => {
    const at = `${field}[${i}]`;
    const prefix = source.prefix ?? '';
    if (prefix !== '') causes.push(...envVarNameProblems(prefix).map((p) => fieldError.invalid(`${at}.prefix`, prefix, p)));
    let count = 0;
    for (const kind of ['configMapRef', 'secretRef'] as const) {
      const ref = source[kind];
      if (ref == null) continue;
      count++;
      const name = ref.name ?? '';
      if (name === '') causes.push(fieldError.required(`${at}.${kind}.name`));
      else causes.push(...prefixNameProblems(name).map((p) => fieldError.invalid(`${at}.${kind}.name`, name, p)));
    }
    // kube reports these two at the list's path, not the entry's.
    if (count === 0) causes.push(fieldError.invalid(field, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1) causes.push(fieldError.invalid(field, '', 'may not have more than one field specified at a time'));
  });
  return causes;
}
