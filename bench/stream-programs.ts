/**
 * The two small node programs of the streams bench. The server runs in the pod (host image,
 * `node -e`); the client runs as its own process twice per figure: through `kubectl
 * port-forward` (on the host, to 127.0.0.1) and straight to the pod's IP from inside the
 * site's network namespace (`ip netns exec`), so both paths have the same client.
 */

/** The pod's server on :8080. `GET /big?bytes=N` sends N bytes (1 MiB writes, with backpressure); `POST /sink` reads the body and answers its length; anything else answers 100 bytes. */
export const POD_SERVER = [
  "const http=require('http');const buf=Buffer.alloc(1<<20,120);const small='x'.repeat(100);",
  'http.createServer((q,s)=>{const u=new URL(q.url,"http://pod");',
  "if(u.pathname==='/big'){let left=Number(u.searchParams.get('bytes'));s.writeHead(200,{'content-length':left});",
  "const pump=()=>{while(left>0){const n=Math.min(left,buf.length);left-=n;if(!s.write(n===buf.length?buf:buf.subarray(0,n))){s.once('drain',pump);return}}s.end()};pump();return}",
  "if(u.pathname==='/sink'){let n=0;q.on('data',c=>n+=c.length);q.on('end',()=>s.end(String(n)));return}",
  "s.end(small)}).listen(8080)",
].join('');

/** Writes its own clock (Date.now(), ms) as one line every 50 ms, for the log latency. */
export const POD_CLOCK = 'setInterval(()=>console.log(Date.now()),50)';

/**
 * `node client.cjs <mode> <host> <port> [a] [b]`, one JSON line on stdout:
 * - `download <bytes>`: `GET /big`, `{bytes, ms}` from the request to the body's end;
 * - `upload <bytes>`: `POST /sink` in 1 MiB writes with backpressure, `{bytes, ms}` until the answer;
 * - `small <connections> <seconds>`: that many keep-alive connections each sending `GET /small`
 *   one after another, `{requests, errors, seconds, p50, p99}` (latency per request, ms);
 * - `ready`: `{ok: true}` when `GET /small` answers 200, else exits 1.
 */
export const STREAM_CLIENT = `'use strict';
const http = require('http');
const [mode, host, port, a, b] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const fail = (e) => { process.stderr.write(String(e && e.message || e) + '\\n'); process.exit(1); };
const t0 = performance.now();
if (mode === 'download') {
  let got = 0;
  http.get({ host, port, path: '/big?bytes=' + a }, (res) => {
    res.on('data', (c) => (got += c.length));
    res.on('end', () => out({ bytes: got, ms: performance.now() - t0 }));
  }).on('error', fail);
} else if (mode === 'upload') {
  const buf = Buffer.alloc(1 << 20, 121);
  let left = Number(a);
  const req = http.request({ host, port, path: '/sink', method: 'POST', headers: { 'content-length': left } }, (res) => {
    let body = '';
    res.on('data', (c) => (body += c));
    res.on('end', () => out({ bytes: Number(body), ms: performance.now() - t0 }));
  });
  req.on('error', fail);
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, buf.length);
      left -= n;
      if (!req.write(n === buf.length ? buf : buf.subarray(0, n))) return void req.once('drain', pump);
    }
    req.end();
  };
  pump();
} else if (mode === 'small') {
  const connections = Number(a);
  const end = t0 + Number(b) * 1000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let errors = 0;
  const one = () => new Promise((resolve) => {
    const t = performance.now();
    http.get({ host, port, path: '/small', agent }, (res) => {
      res.resume();
      res.on('end', () => { latencies.push(performance.now() - t); resolve(); });
    }).on('error', () => { errors++; resolve(); });
  });
  Promise.all(Array.from({ length: connections }, async () => { while (performance.now() < end) await one(); })).then(() => {
    latencies.sort((x, y) => x - y);
    const p = (q) => latencies[Math.max(0, Math.ceil((q / 100) * latencies.length) - 1)];
    out({ requests: latencies.length, errors, seconds: (performance.now() - t0) / 1000, p50: p(50), p99: p(99) });
    agent.destroy();
  });
} else if (mode === 'ready') {
  http.get({ host, port, path: '/small' }, (res) => (res.statusCode === 200 ? out({ ok: true }) : fail('HTTP ' + res.statusCode))).on('error', fail);
} else fail('unknown mode ' + mode);
`;
