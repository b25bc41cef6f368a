const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/**
 * Go's `strconv.Quote` (what `fmt` prints for `%q`): a double-quoted string in which `"` and `\`
 * are escaped, printable characters (Unicode letters, marks, numbers, punctuation, symbols and
 * the ASCII space) are kept, and everything else is written as `\n`-style, `\xff`, `\uffff` or
 * `\U0010ffff` escapes. A lone surrogate is U+FFFD, as Go's JSON decoder makes it.
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else if (char === '"' || char === '\\') out += `\\${char}`;
    else if (PRINTABLE.test(char)) out += char;
    else if (SHORT_ESCAPES[char] !== undefined) out += SHORT_ESCAPES[char];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}
