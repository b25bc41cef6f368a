import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseWrkOutput } from './wrk.js';

const REPORT = `Running 10s test @ http://10.96.12.7:80/small
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.10ms    1.02ms  41.20ms   90.12%
    Req/Sec    10.31k   512.33    11.20k    71.00%
  Latency Distribution
     50%    2.95ms
     75%    3.40ms
     90%    4.01ms
     99%    1.20s
  102650 requests in 10.00s, 19.48MB read
  Socket errors: connect 0, read 2, write 1, timeout 4
  Non-2xx or 3xx responses: 3
Requests/sec:  10263.45
Transfer/sec:      1.95MB
`;

describe('parseWrkOutput', () => {
  it("reads the rate, p50 and p99 (us, ms or s) and the errors of wrk's --latency report", () => {
    assert.deepEqual(parseWrkOutput(REPORT), { rate: 10263.45, p50: 2.95, p99: 1200, errors: 3, socketErrors: 7 });
    assert.deepEqual(parseWrkOutput(REPORT.replace('2.95ms', '950.00us').replace(/ +Socket errors.*\n/, '').replace(/ +Non-2xx.*\n/, '')), { rate: 10263.45, p50: 0.95, p99: 1200, errors: 0, socketErrors: 0 });
  });
});
