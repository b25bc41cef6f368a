/**
 * Kubernetes' `$(VAR)` expansion (kubelet's `expansion.Expand`), used for a container's
 * command, args and exec probes: `$(NAME)` becomes the value `lookup` gives, or stays as
 * written when it gives none; `$$` is a literal `$`; any other `$` is kept.
 */
export function expandVariables(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') out += '$';
    else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close < 0) out += '$(';
      else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else out += `$${next}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
