import { type FieldPath, pathString } from './path-element.js';

/** A problem found while walking an object with its schema, at a field path. */
export interface ValidationError {
  readonly path: FieldPath;
  readonly message: string;
}

/** structured-merge-diff's rendering: `<path>: <message>`, several as `errors:` plus indented lines. */
export function formatValidationErrors(errors: readonly ValidationError[]): string {
  const one = (e: ValidationError): string => (e.path.length === 0 ? e.message : `${pathString(e.path)}: ${e.message}`);
  if (errors.length === 1) return one(errors[0] as ValidationError);
  return ['errors:', ...errors.map((e) => `  ${one(e)}`)].join('\n');
}
