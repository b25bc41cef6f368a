import { spawn } from 'node:child_process';
import { toolPath } from '../../../src/testing/tools.js';

/**
 * Workloads and clients for the Service data plane tests: servers that say which pod
 * answered, and programs run inside a pod's network namespace (so their source address is the
 * pod's, as the site proxy sees it).
 */

/** HTTP/1.1 on 8080: `/` says the pod, the client address it saw and the forwarding headers; `/healthz` follows `/unready`. */
export const HTTP_SERVER = `const os=require('os');let ready=true;require('http').createServer((q,s)=>{
if(q.url==='/healthz'){s.statusCode=ready?200:503;return s.end();}
if(q.url==='/unready'){ready=false;return s.end('unready');}
s.setHeader('x-pod',os.hostname());
s.end(JSON.stringify({pod:os.hostname(),from:q.socket.remoteAddress,xff:q.headers['x-forwarded-for']??null,xfp:q.headers['x-forwarded-proto']??null,http:q.httpVersion}));
}).listen(8080)`;

/** TCP on 9000: reads until the client half-closes, then answers with the pod and the byte count and closes. */
export const TCP_SERVER = `const os=require('os');require('net').createServer((c)=>{let n=0;c.on('data',(d)=>n+=d.length);c.on('end',()=>c.end(os.hostname()+' '+n));c.on('error',()=>{});}).listen(9000)`;

/** A Deployment of `replicas` pods on site `site` running `script` with node on the host image. */
export function deploymentYaml(name: string, script: string, o: { site: string; replicas?: number; readiness?: string; volumes?: string; mounts?: string }): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: "system/${o.site}"}}
spec:
  replicas: ${o.replicas ?? 2}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: host
        command: ["node", "-e", ${JSON.stringify(script)}]
${o.readiness ?? ''}${o.mounts ?? ''}${o.volumes ?? ''}`;
}

/** A Service selecting `app`, with `ports` (`name:port:targetPort`) and annotations. */
export function serviceYaml(name: string, o: { app: string; site: string; ports: ReadonlyArray<{ name: string; port: number; targetPort: number }>; annotations?: Record<string, string> }): string {
  const annotations = Object.entries({ 'svc.io/sites': `system/${o.site}`, ...o.annotations }).map(([k, v]) => `${k}: "${v}"`).join(', ');
  return `apiVersion: v1
kind: Service
metadata: {name: ${name}, annotations: {${annotations}}}
spec:
  selector: {app: ${o.app}}
  ports:
${o.ports.map((p) => `  - {name: ${p.name}, port: ${p.port}, targetPort: ${p.targetPort}}`).join('\n')}
`;
}

export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program in network namespace `netns` without blocking this process (the control plane lives in it). */
export function runIn(netns: string, file: string, args: readonly string[], timeoutMs = 20_000): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(toolPath('ip'), ['netns', 'exec', netns, file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** curl in `netns` (`-s`, 3 s limit): its output, or the failure with curl's exit code. */
export async function curlIn(netns: string, args: readonly string[]): Promise<Ran> {
  return runIn(netns, toolPath('curl'), ['-s', '--max-time', '3', ...args]);
}

/**
 * A gRPC server on 50051 (h2c), written against the wire protocol with node's http2 (the pod
 * sees the host's node, not this installation's modules): `/test.Echo/Unary` answers
 * `<pod>:<request>`, `/test.Echo/Stream` sends `<pod>:0…n-1` for a request `n`; each reply
 * ends with trailers `grpc-status: 0` and `x-pod`. Messages are raw bytes.
 */
export const GRPC_SERVER = `const h2=require('http2'),os=require('os');
const frame=(b)=>{const f=Buffer.alloc(5+b.length);f.writeUInt32BE(b.length,1);b.copy(f,5);return f;};
h2.createServer().on('stream',(st,h)=>{const parts=[];st.on('data',(d)=>parts.push(d));st.on('end',()=>{
const msg=Buffer.concat(parts).subarray(5);const path=h[':path'];
st.respond({':status':200,'content-type':'application/grpc'},{waitForTrailers:true});
st.on('wantTrailers',()=>st.sendTrailers(path.startsWith('/test.Echo/')?{'grpc-status':'0','x-pod':os.hostname()}:{'grpc-status':'12','grpc-message':'no such method'}));
if(path==='/test.Echo/Unary')st.end(frame(Buffer.from(os.hostname()+':'+msg.toString())));
else if(path==='/test.Echo/Stream'){const n=Number(msg.toString())||3;for(let i=0;i<n;i++)st.write(frame(Buffer.from(os.hostname()+':'+i)));st.end();}
else st.end();});}).listen(50051)`;
