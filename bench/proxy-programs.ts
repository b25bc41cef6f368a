/**
 * The node programs of the Service proxy bench. The server runs in pods (host image, `node
 * -e`); the client runs on the host inside the client pod's network namespace (`ip netns exec`),
 * so its source address is the pod's, as the site proxy sees it, and the same program sends
 * each load through the proxy (the Service's ClusterIP) and straight to the server pod's IP.
 */

/**
 * The pod's servers. HTTP/1.1 on 8080: `GET /big?bytes=N` sends N bytes (1 MiB writes, with
 * backpressure), `/whoami` answers `{pod, xff}` (the X-Forwarded-For it saw, or null),
 * `/healthz` answers 200 or 503 as `/ready` and `/unready` set it, anything else 100 bytes.
 * TCP on 9100: reads one line with a byte count N, sends N bytes and closes. gRPC (h2c) on
 * 50051: every unary call answers its own message, `grpc-status: 0` in the trailers.
 */
export const PROXY_POD_SERVER = [
  "const http=require('http'),net=require('net'),h2=require('http2'),os=require('os');",
  "const buf=Buffer.alloc(1<<20,120);const small='x'.repeat(100);let ready=true;",
  'const send=(w,left,done)=>{const pump=()=>{while(left>0){const n=Math.min(left,buf.length);left-=n;if(!w.write(n===buf.length?buf:buf.subarray(0,n))){w.once("drain",pump);return}}done()};pump()};',
  'http.createServer((q,s)=>{const u=new URL(q.url,"http://pod");',
  "if(u.pathname==='/big'){const left=Number(u.searchParams.get('bytes'));s.writeHead(200,{'content-length':left});return send(s,left,()=>s.end())}",
  "if(u.pathname==='/healthz'){s.statusCode=ready?200:503;return s.end()}",
  "if(u.pathname==='/ready'||u.pathname==='/unready'){ready=u.pathname==='/ready';return s.end(String(ready))}",
  "if(u.pathname==='/whoami')return s.end(JSON.stringify({pod:os.hostname(),xff:q.headers['x-forwarded-for']??null}));",
  's.end(small)}).listen(8080);',
  "net.createServer((c)=>{let line='';c.on('error',()=>{});const read=(d)=>{line+=d.toString('latin1');const at=line.indexOf('\\n');if(at<0)return;c.off('data',read);send(c,Number(line.slice(0,at)),()=>c.end())};c.on('data',read)}).listen(9100);",
  "h2.createServer().on('stream',(st)=>{const parts=[];st.on('error',()=>{});st.on('data',(d)=>parts.push(d));st.on('end',()=>{",
  "st.respond({':status':200,'content-type':'application/grpc'},{waitForTrailers:true});st.on('wantTrailers',()=>st.sendTrailers({'grpc-status':'0'}));st.end(Buffer.concat(parts))})}).listen(50051);",
].join('');

/**
 * `node client.cjs <mode> …`, one JSON line on stdout per run (`cpu`: the client's own CPU seconds):
 * - `tcp-download <host> <port> <bytes>`: asks the TCP server for `bytes`, `{bytes, ms, cpu}` until it closes;
 * - `http-download <host> <port> <bytes>`: `GET /big`, `{bytes, ms, cpu}` until the body's end;
 * - `grpc <host> <port> <concurrency> <seconds> <path of @grpc/grpc-js>`: that many unary
 *   calls in flight on one channel for `seconds` (after one untimed call),
 *   `{calls, errors, seconds, p50, p99, cpu}` (latency per call, ms);
 * - `probe`: reads commands as JSON lines on stdin and answers each with a JSON line:
 *   `{id, host, port, path, until, timeoutMs}` starts a `GET <path>` on a new connection every
 *   10 ms (at most 20 in flight, 300 ms each) until an answer meets `until` — `up` (any 200),
 *   `down` (an attempt failed), `xff` / `no-xff` (`/whoami` shows an X-Forwarded-For or none),
 *   `pod:<name>` (`/whoami` from that pod) — and answers `{id, at, attempts}` (`at`: Date.now()
 *   when that answer arrived) or `{id, error}` after `timeoutMs`.
 */
export const PROXY_CLIENT = `'use strict';
const http = require('http');
const net = require('net');
const [mode, host, port, a, b, c] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const fail = (e) => { process.stderr.write(String(e && e.message || e) + '\\n'); process.exit(1); };
const pct = (sorted, q) => sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)];
const t0 = performance.now();
if (mode === 'tcp-download') {
  let got = 0;
  const s = net.connect(Number(port), host, () => s.write(a + '\\n'));
  s.on('data', (d) => (got += d.length));
  s.on('end', () => out({ bytes: got, ms: performance.now() - t0, cpu: cpu() }));
  s.on('error', fail);
} else if (mode === 'http-download') {
  let got = 0;
  http.get({ host, port, path: '/big?bytes=' + a }, (res) => {
    res.on('data', (d) => (got += d.length));
    res.on('end', () => out({ bytes: got, ms: performance.now() - t0, cpu: cpu() }));
  }).on('error', fail);
} else if (mode === 'grpc') {
  const grpc = require(c);
  const client = new grpc.Client(host + ':' + port, grpc.credentials.createInsecure());
  const message = Buffer.alloc(100, 97);
  const raw = (x) => x;
  const call = () => new Promise((resolve) => client.makeUnaryRequest('/bench.Echo/Unary', raw, raw, message, (error) => resolve(error)));
  call().then(async (first) => {
    if (first) fail(first);
    const start = performance.now();
    const end = start + Number(b) * 1000;
    const latencies = [];
    let errors = 0;
    await Promise.all(Array.from({ length: Number(a) }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        if (await call()) errors++;
        else latencies.push(performance.now() - t);
      }
    }));
    latencies.sort((x, y) => x - y);
    out({ calls: latencies.length, errors, seconds: (performance.now() - start) / 1000, p50: pct(latencies, 50), p99: pct(latencies, 99), cpu: cpu() });
    client.close();
  });
} else if (mode === 'probe') {
  const attempt = (o) => new Promise((resolve) => {
    const req = http.get({ host: o.host, port: o.port, path: o.path, agent: false, timeout: 300 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => { let json; try { json = JSON.parse(body); } catch { json = undefined; } resolve({ ok: res.statusCode === 200, json }); });
      res.on('error', () => resolve({ ok: false }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ ok: false }));
  });
  const meets = (until, r) => {
    if (until === 'down') return !r.ok;
    if (!r.ok) return false;
    if (until === 'up') return true;
    const xff = r.json && r.json.xff;
    if (until === 'xff') return typeof xff === 'string';
    if (until === 'no-xff') return r.json !== undefined && xff === null;
    if (until.startsWith('pod:')) return r.json !== undefined && r.json.pod === until.slice(4);
    return false;
  };
  const run = (o) => {
    let done = false;
    let inflight = 0;
    let attempts = 0;
    const finish = (answer) => { if (done) return; done = true; clearInterval(timer); clearTimeout(limit); out({ id: o.id, ...answer }); };
    const fire = () => {
      if (done || inflight >= 20) return;
      inflight++;
      attempts++;
      attempt(o).then((r) => { inflight--; if (meets(o.until, r)) finish({ at: Date.now(), attempts }); });
    };
    const timer = setInterval(fire, 10);
    const limit = setTimeout(() => finish({ error: 'not ' + o.until + ' within ' + o.timeoutMs + ' ms (' + attempts + ' attempts)' }), o.timeoutMs);
    fire();
  };
  let buffered = '';
  process.stdin.setEncoding('utf8').on('data', (d) => {
    buffered += d;
    for (let at = buffered.indexOf('\\n'); at >= 0; at = buffered.indexOf('\\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      if (line.trim() !== '') run(JSON.parse(line));
    }
  });
  process.stdin.on('end', () => process.exit(0));
} else fail('unknown mode ' + mode);
`;
