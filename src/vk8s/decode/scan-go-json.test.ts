import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GoJsonSyntaxError, parseGoJson } from './parse-go-json.js';
import { scanGoJson } from './scan-go-json.js';

const scan = (text: string): string | undefined => scanGoJson(Buffer.from(text, 'latin1'));

describe('scanGoJson', () => {
  it('scanGoJson accepts valid JSON', () => {
    for (const text of ['{}', ' [1, -0.5e+3, "a\\u00e9\\n", true, false, null] ', '12', '{"a":{"b":[]}}']) assert.equal(scan(text), undefined, text);
  });

  it("scanGoJson reports Go encoding/json's message for each kind of syntax error", () => {
    const cases: Array<[string, string]> = [
      ['', 'unexpected end of JSON input'],
      ['{"a":1', 'unexpected end of JSON input'],
      ['{"a', 'unexpected end of JSON input'],
      ['x', "invalid character 'x' looking for beginning of value"],
      ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
      ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
      ['[1 2]', "invalid character '2' after array element"],
      ['{} x', "invalid character 'x' after top-level value"],
      ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
      ['{"a":nul}', "invalid character '}' in literal null (expecting 'l')"],
      ['{"a":fa}', "invalid character '}' in literal false (expecting 'l')"],
      ['{"a":01}', "invalid character '1' after object key:value pair"],
      ['{"a":-}', "invalid character '}' in numeric literal"],
      ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
      ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
      ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
      ['{"a":"\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"],
      ['{"a":"\t"}', "invalid character '\\t' in string literal"],
      ['\xef\xbb\xbf{}', "invalid character 'ï' looking for beginning of value"],
    ];
    for (const [text, message] of cases) assert.equal(scan(text), message, JSON.stringify(text));
  });

  it('parseGoJson throws GoJsonSyntaxError with the Go message', () => {
    assert.deepEqual(parseGoJson(Buffer.from('{"a":[1]}')), { a: [1] });
    assert.throws(() => parseGoJson(Buffer.from('{"a":]')), (error: unknown) => error instanceof GoJsonSyntaxError && error.message === "invalid character ']' looking for beginning of value");
  });
});
