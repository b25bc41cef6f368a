import type { StatusCause } from '../../apimachinery/errors/status-error.js';

/**
 * kube-apiserver prints the bad value of a field error with Go's `%#v` when the value is a
 * struct or a map of its internal types (`map[string]string{"app":"web"}`,
 * `v1.LabelSelector{MatchLabels:…}`, `intstr.IntOrString{Type:0, IntVal:0, StrVal:""}`).
 * These renderers reproduce that text for the few types whose errors clients show, and the
 * cause builders take the rendered text as is (`fieldError.invalid` would JSON-encode it).
 */

/** A Go string literal (`strconv.Quote`); JSON's escaping matches it for printable text. */
export function goString(value: string): string {
  return JSON.stringify(value);
}

/** `map[string]string{"a":"b", "c":"d"}` with keys sorted like fmt; `(nil)` when absent. */
export function goStringMap(map: Readonly<Record<string, string>> | undefined | null): string {
  if (map == null) return 'map[string]string(nil)';
  const entries = Object.keys(map)
    .sort()
    .map((k) => `${goString(k)}:${goString(map[k] ?? '')}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/** `[]string{"a", "b"}`; `[]string(nil)` when absent. */
export function goStringSlice(values: readonly string[] | undefined | null): string {
  if (values == null) return '[]string(nil)';
  return `[]string{${values.map(goString).join(', ')}}`;
}

/** A struct literal: `pkg.Type{Field:value, …}` from already rendered field values. */
export function goStruct(type: string, fields: ReadonlyArray<readonly [string, string]>): string {
  return `${type}{${fields.map(([name, value]) => `${name}:${value}`).join(', ')}}`;
}

/** A nil pointer field: `(*apps.RollingUpdateDeployment)(nil)`. */
export function goNilPointer(type: string): string {
  return `(*${type})(nil)`;
}

/**
 * A non-nil pointer field: Go prints the address, which is meaningless outside the process;
 * a fixed stand-in keeps the shape.
 */
export function goPointer(type: string): string {
  return `(*${type})(0xc000000000)`;
}

interface SelectorView {
  readonly matchLabels?: Readonly<Record<string, string>> | null;
  readonly matchExpressions?: ReadonlyArray<{ readonly key?: string; readonly operator?: string; readonly values?: readonly string[] | null }> | null;
}

/** `v1.LabelSelector{MatchLabels:…, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`. */
export function goLabelSelector(selector: SelectorView | undefined | null): string {
  if (selector == null) return goNilPointer('v1.LabelSelector');
  const expressions = selector.matchExpressions;
  const renderedExpressions =
    expressions == null
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${expressions
          .map((e) =>
            goStruct('v1.LabelSelectorRequirement', [
              ['Key', goString(e.key ?? '')],
              ['Operator', goString(e.operator ?? '')],
              ['Values', goStringSlice(e.values)],
            ]),
          )
          .join(', ')}}`;
  return goStruct('v1.LabelSelector', [
    ['MatchLabels', goStringMap(selector.matchLabels)],
    ['MatchExpressions', renderedExpressions],
  ]);
}

/** `intstr.IntOrString{Type:0, IntVal:5, StrVal:""}` (Type 1 for strings); absent is the zero value. */
export function goIntOrString(value: unknown): string {
  const isString = typeof value === 'string';
  return goStruct('intstr.IntOrString', [
    ['Type', isString ? '1' : '0'],
    ['IntVal', typeof value === 'number' ? String(value) : '0'],
    ['StrVal', goString(isString ? value : '')],
  ]);
}

/** Go's `%v` of a number, bool or string field value as kube prints simple values. */
export function goScalar(value: string | number | boolean): string {
  return typeof value === 'string' ? goString(value) : String(value);
}

/** `Invalid value: <rendered>[: detail]` — Go omits the `: detail` part when the detail is empty. */
export function invalidRendered(field: string, rendered: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}${detail === '' ? '' : `: ${detail}`}` };
}

/** `Unsupported value: <rendered>: supported values: "a", "b"`. */
export function notSupportedRendered(field: string, rendered: string, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${rendered}: supported values: ${supported.map(goString).join(', ')}` };
}
