/**
 * Name and label syntax checks as Kubernetes' apimachinery defines them. Each returns the
 * list of problems (empty when valid), phrased like kube-apiserver's messages.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** The problems of `value` against a maximum length and a pattern (described by `rule`). */
function checked(value: string, maxLength: number, pattern: RegExp, rule: string): string[] {
  const problems: string[] = [];
  if (value.length > maxLength) problems.push(`must be no more than ${maxLength} characters`);
  if (!pattern.test(value)) problems.push(rule);
  return problems;
}

export function dns1035LabelProblems(value: string): string[] {
  return checked(
    value,
    63,
    DNS1035_LABEL,
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  );
}

export function dns1123LabelProblems(value: string): string[] {
  return checked(
    value,
    63,
    DNS1123_LABEL,
    "a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  );
}

export function dns1123SubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push('must be no more than 253 characters');
  if (value.length === 0 || !value.split('.').every((part) => DNS1123_LABEL.test(part))) {
    problems.push(
      "a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return problems;
}

/** A label or annotation key: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63 characters. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  const [prefix, name] = parts.length === 2 ? [parts[0] ?? '', parts[1] ?? ''] : [undefined, parts[0] ?? ''];
  const problems: string[] = [];
  if (prefix !== undefined) {
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else problems.push(...dns1123SubdomainProblems(prefix).map((p) => `prefix part ${p}`));
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (name.length > 0 && !QUALIFIED_NAME_PART.test(name)) {
    problems.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  return problems;
}

export function labelValueProblems(value: string): string[] {
  return checked(
    value,
    63,
    LABEL_VALUE,
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  );
}
