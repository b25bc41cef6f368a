/**
 * Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource`): a decimal number
 * with a binary-SI (Ki…Ei), decimal-SI (n u m k M G T P E) or exponent (e3, E-2) suffix.
 * Held exactly in nano-units (values below 1n round up, as Kubernetes does), printed in
 * Kubernetes' canonical form: `1024Mi` → `1Gi`, `0.5` → `500m`, `1000` → `1k`.
 */
export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

const NANO = 1_000_000_000n;
/** Largest magnitude accepted: int64 in whole units, like Kubernetes. */
const MAX_NANOS = 9_223_372_036_854_775_807n * NANO;

const BINARY: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

export class QuantityError extends Error {
  override readonly name = 'QuantityError';
}

const ceilDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
};

export class Quantity {
  private constructor(
    /** The exact value in units of 10^-9. */
    readonly nanos: bigint,
    readonly format: QuantityFormat,
  ) {}

  /** Parses a quantity; throws {@link QuantityError} with Kubernetes' message for bad input. */
  static parse(text: string): Quantity {
    const fail = (): never => {
      throw new QuantityError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    };
    const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(text.trim());
    if (match === null || text.trim() === '') return fail();
    const [, sign = '', whole = '', fraction = '', suffix = ''] = match;
    if (whole === '' && fraction === '') return fail();
    let format: QuantityFormat;
    let scale: { binary: number } | { decimal: number };
    if (suffix in BINARY) {
      format = 'BinarySI';
      scale = { binary: BINARY[suffix] ?? 0 };
    } else if (suffix in DECIMAL) {
      format = 'DecimalSI';
      scale = { decimal: DECIMAL[suffix] ?? 0 };
    } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
      format = 'DecimalExponent';
      const exponent = Number(suffix.slice(1));
      if (Math.abs(exponent) > 30) throw new QuantityError(`quantity "${text}" is out of range`);
      scale = { decimal: exponent };
    } else {
      return fail();
    }
    const digits = BigInt((whole === '' ? '0' : whole) + fraction);
    let numerator = digits * NANO;
    let denominator = 10n ** BigInt(fraction.length);
    if ('binary' in scale) numerator *= 1024n ** BigInt(scale.binary);
    else if (scale.decimal >= 0) numerator *= 10n ** BigInt(scale.decimal);
    else denominator *= 10n ** BigInt(-scale.decimal);
    let nanos = ceilDiv(numerator, denominator);
    if (nanos > MAX_NANOS) throw new QuantityError(`quantity "${text}" is too large`);
    if (sign === '-') nanos = -nanos;
    return new Quantity(nanos === 0n ? 0n : nanos, format);
  }

  static fromMilli(milli: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(milli) * 1_000_000n, format);
  }

  static fromUnits(units: bigint | number, format: QuantityFormat): Quantity {
    return new Quantity(BigInt(units) * NANO, format);
  }

  /** Whole units, rounded up (bytes for memory). */
  value(): bigint {
    return ceilDiv(this.nanos, NANO);
  }

  /** Thousandths, rounded up (millicores for CPU). */
  milliValue(): bigint {
    return ceilDiv(this.nanos, 1_000_000n);
  }

  compare(other: Quantity): -1 | 0 | 1 {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  /** Kubernetes' canonical form. */
  toString(): string {
    if (this.nanos === 0n) return '0';
    const negative = this.nanos < 0n;
    const magnitude = negative ? -this.nanos : this.nanos;
    const sign = negative ? '-' : '';
    if (this.format === 'BinarySI' && magnitude >= 1024n * NANO && magnitude % NANO === 0n) {
      let value = magnitude / NANO;
      let step = 0;
      while (step < 6 && value % 1024n === 0n) {
        value /= 1024n;
        step++;
      }
      return `${sign}${value}${BINARY_SUFFIX[step] ?? ''}`;
    }
    let mantissa = magnitude;
    let exponent = -9;
    while (exponent < 18 && mantissa % 1000n === 0n) {
      mantissa /= 1000n;
      exponent += 3;
    }
    if (this.format === 'DecimalExponent') return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
    return `${sign}${mantissa}${DECIMAL_SUFFIX[exponent] ?? ''}`;
  }

  toJSON(): string {
    return this.toString();
  }
}
