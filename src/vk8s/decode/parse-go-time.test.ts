import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RFC3339, RFC3339_MICRO, formatGoTime, isGoZeroTime, parseGoTime } from './parse-go-time.js';

const normalize = (value: string, layout: typeof RFC3339 | typeof RFC3339_MICRO = RFC3339): string => {
  const parsed = parseGoTime(value, layout);
  if ('error' in parsed) return parsed.error;
  return formatGoTime(parsed.seconds, parsed.micros, layout);
};

describe('parseGoTime', () => {
  it('parseGoTime normalises RFC 3339 times to UTC seconds as metav1.Time encodes them', () => {
    assert.equal(normalize('2020-01-02T03:04:05Z'), '2020-01-02T03:04:05Z');
    assert.equal(normalize('2020-01-02T03:04:05.999Z'), '2020-01-02T03:04:05Z');
    assert.equal(normalize('2020-01-01T01:30:00+02:00'), '2019-12-31T23:30:00Z');
    assert.equal(normalize('2020-02-29T1:00:00-00:30'), '2020-02-29T01:30:00Z', 'Go accepts a one-digit hour');
    assert.equal(normalize('0001-01-01T00:00:00Z'), '0001-01-01T00:00:00Z');
    assert.equal(normalize('2020-01-02T03:04:05.123456Z', RFC3339_MICRO), '2020-01-02T03:04:05.123456Z');
  });

  it("parseGoTime reports Go's ParseError texts", () => {
    assert.equal(normalize('yesterday'), 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
    assert.equal(normalize('2020-01-02'), 'parsing time "2020-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"');
    assert.equal(normalize('2020-13-02T00:00:00Z'), 'parsing time "2020-13-02T00:00:00Z": month out of range');
    assert.equal(normalize('2021-02-29T00:00:00Z'), 'parsing time "2021-02-29T00:00:00Z": day out of range');
    assert.equal(normalize('2020-01-02T24:00:00Z'), 'parsing time "2020-01-02T24:00:00Z": hour out of range');
    assert.equal(normalize('2020-01-02T03:04:05'), 'parsing time "2020-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"');
    assert.equal(normalize('2020-01-02T03:04:05Zjunk'), 'parsing time "2020-01-02T03:04:05Zjunk": extra text: junk');
    assert.equal(
      normalize('2020-01-02T03:04:05Z', RFC3339_MICRO),
      'parsing time "2020-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
  });

  it('isGoZeroTime recognises 0001-01-01T00:00:00Z only', () => {
    const zero = parseGoTime('0001-01-01T00:00:00Z', RFC3339);
    const other = parseGoTime('0001-01-01T00:00:01Z', RFC3339);
    assert.ok(!('error' in zero) && isGoZeroTime(zero.seconds, zero.micros));
    assert.ok(!('error' in other) && !isGoZeroTime(other.seconds, other.micros));
  });
});
