import { goQuoteChar } from './go-quote.js';

/**
 * The first syntax error Go's encoding/json scanner reports for `data`, word for word
 * (`invalid character '}' after object key`, `unexpected end of JSON input`), or undefined
 * when the bytes are valid JSON. Only run when JSON.parse has already failed: both accept the
 * same grammar, and this gives the message kube-apiserver answers with.
 */
export function scanGoJson(data: Uint8Array): string | undefined {
  const scanner = new Scanner();
  for (const c of data) {
    const error = scanner.step(c);
    if (error !== undefined) return error;
  }
  return scanner.eof();
}

type Container = 'objectKey' | 'objectValue' | 'arrayValue';
type State = (c: number) => string | undefined;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const fail = (c: number, context: string): string => `invalid character ${goQuoteChar(c)} ${context}`;
const endTop: State = (c) => (isSpace(c) ? undefined : fail(c, 'after top-level value'));

class Scanner {
  private readonly stack: Container[] = [];
  private state: State = (c) => this.beginValue(c);
  private done = false;

  step(c: number): string | undefined {
    return this.state(c);
  }

  eof(): string | undefined {
    if (this.done) return undefined;
    // Go feeds a space: it ends a number at the top level, anything else is unfinished.
    if (this.state(0x20) === undefined && this.done) return undefined;
    return 'unexpected end of JSON input';
  }

  private go(next: State): undefined {
    this.state = next;
    return undefined;
  }

  private literal(rest: string, name: string): State {
    const expected = rest.charCodeAt(0);
    return (c) => {
      if (c !== expected) return fail(c, `in literal ${name} (expecting ${goQuoteChar(expected)})`);
      return rest.length === 1 ? this.go((d) => this.endValue(d)) : this.go(this.literal(rest.slice(1), name));
    };
  }

  private beginValue(c: number): string | undefined {
    if (isSpace(c)) return undefined;
    switch (c) {
      case 0x7b: // {
        this.stack.push('objectKey');
        return this.go((d) => this.beginStringOrEmpty(d));
      case 0x5b: // [
        this.stack.push('arrayValue');
        return this.go((d) => this.beginValueOrEmpty(d));
      case 0x22:
        return this.go((d) => this.inString(d));
      case 0x2d: // -
        return this.go((d) => this.negative(d));
      case 0x30:
        return this.go((d) => this.zero(d));
      case 0x74:
        return this.go(this.literal('rue', 'true'));
      case 0x66:
        return this.go(this.literal('alse', 'false'));
      case 0x6e:
        return this.go(this.literal('ull', 'null'));
      default:
        return isDigit(c) ? this.go((d) => this.digits(d)) : fail(c, 'looking for beginning of value');
    }
  }

  private beginValueOrEmpty(c: number): string | undefined {
    if (isSpace(c)) return undefined;
    return c === 0x5d ? this.endValue(c) : this.beginValue(c);
  }

  private beginStringOrEmpty(c: number): string | undefined {
    if (isSpace(c)) return undefined;
    if (c === 0x7d) {
      this.stack[this.stack.length - 1] = 'objectValue';
      return this.endValue(c);
    }
    return this.beginString(c);
  }

  private beginString(c: number): string | undefined {
    if (isSpace(c)) return undefined;
    return c === 0x22 ? this.go((d) => this.inString(d)) : fail(c, 'looking for beginning of object key string');
  }

  private endValue(c: number): string | undefined {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.done = true;
      this.state = endTop;
      return endTop(c);
    }
    if (isSpace(c)) return this.go((d) => this.endValue(d));
    switch (top) {
      case 'objectKey':
        if (c !== 0x3a) return fail(c, 'after object key');
        this.stack[this.stack.length - 1] = 'objectValue';
        return this.go((d) => this.beginValue(d));
      case 'objectValue':
        if (c === 0x2c) {
          this.stack[this.stack.length - 1] = 'objectKey';
          return this.go((d) => this.beginString(d));
        }
        return c === 0x7d ? this.pop() : fail(c, 'after object key:value pair');
      case 'arrayValue':
        if (c === 0x2c) return this.go((d) => this.beginValue(d));
        return c === 0x5d ? this.pop() : fail(c, 'after array element');
    }
  }

  private pop(): undefined {
    this.stack.pop();
    if (this.stack.length === 0) this.done = true;
    return this.go((d) => this.endValue(d));
  }

  private inString(c: number): string | undefined {
    if (c === 0x22) return this.go((d) => this.endValue(d));
    if (c === 0x5c) return this.go((d) => this.inStringEscape(d));
    return c < 0x20 ? fail(c, 'in string literal') : undefined;
  }

  private inStringEscape(c: number): string | undefined {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) return this.go((d) => this.inString(d));
    return c === 0x75 ? this.go(this.unicodeEscape(4)) : fail(c, 'in string escape code');
  }

  private unicodeEscape(remaining: number): State {
    return (c) => {
      if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
      return remaining === 1 ? this.go((d) => this.inString(d)) : this.go(this.unicodeEscape(remaining - 1));
    };
  }

  private negative(c: number): string | undefined {
    if (c === 0x30) return this.go((d) => this.zero(d));
    return isDigit(c) ? this.go((d) => this.digits(d)) : fail(c, 'in numeric literal');
  }

  private digits(c: number): string | undefined {
    return isDigit(c) ? undefined : this.zero(c);
  }

  private zero(c: number): string | undefined {
    if (c === 0x2e) return this.go((d) => (isDigit(d) ? this.go((e) => this.fraction(e)) : fail(d, 'after decimal point in numeric literal')));
    if (c === 0x65 || c === 0x45) return this.go((d) => this.exponent(d));
    return this.endValue(c);
  }

  private fraction(c: number): string | undefined {
    if (isDigit(c)) return undefined;
    if (c === 0x65 || c === 0x45) return this.go((d) => this.exponent(d));
    return this.endValue(c);
  }

  private exponent(c: number): string | undefined {
    if (c === 0x2b || c === 0x2d) return this.go((d) => this.exponentSign(d));
    return this.exponentSign(c);
  }

  private exponentSign(c: number): string | undefined {
    return isDigit(c) ? this.go((d) => (isDigit(d) ? undefined : this.endValue(d))) : fail(c, 'in exponent of numeric literal');
  }
}
