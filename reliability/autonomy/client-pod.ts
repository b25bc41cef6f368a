import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deploymentYaml } from '../../test/e2e/support/service-workloads.js';

/**
 * The workloads on the site: `backend` (two pods answering HTTP on 8080 and TCP on 9000,
 * Ready by a probe of /healthz), Services `web` (HTTP_PROXY, 80 → 8080) and `echo` (TCP_PROXY,
 * 9000) selecting them, and `client`, one pod calling both Services by name and by ClusterIP
 * every 100 ms and appending each failure, and once a second the successes, to a file in an
 * emptyDir, which the harness reads on the site's disk (no control plane needed to read it).
 */

const BACKEND = `const os=require('os');require('http').createServer((q,s)=>{s.end(JSON.stringify({pod:os.hostname()}));}).listen(8080);
require('net').createServer((c)=>{let n=0;c.on('data',(d)=>n+=d.length);c.on('end',()=>c.end(os.hostname()+' '+n));c.on('error',()=>{});}).listen(9000);`;

/** Each target on its own loop: a call, then the next 100 ms after the last began (at once when it took longer); 2 s is a failure. */
const CLIENT = `const http=require('http'),net=require('net'),fs=require('fs');
const out='/out/calls.jsonl';const log=(o)=>fs.appendFileSync(out,JSON.stringify(o)+'\\n');
const T=[['web-name','http','web.default.svc.cluster.local',80],['web-ip','http',process.env.WEB_IP,80],
['echo-name','tcp','echo.default.svc.cluster.local',9000],['echo-ip','tcp',process.env.ECHO_IP,9000]];
const ok={};
const once=(kind,host,port)=>new Promise((res)=>{let done=false,c;const fin=(e)=>{if(done)return;done=true;clearTimeout(t);if(c)c.destroy();res(e);};
const t=setTimeout(()=>fin('no answer within 2 s'),2000);const err=(e)=>fin(e.code||e.message);
if(kind==='http'){c=http.get({host,port,path:'/',agent:false},(r)=>{let b='';r.on('data',(d)=>b+=d);r.on('error',err);
r.on('end',()=>fin(r.statusCode===200&&b.includes('"pod"')?null:'HTTP '+r.statusCode+' '+b.slice(0,80)));});c.on('error',err);}
else{let b='';c=net.connect({host,port},()=>c.end('ping'));c.on('data',(d)=>b+=d);c.on('error',err);
c.on('end',()=>fin(/ 4$/.test(b)?null:'reply '+JSON.stringify(b.slice(0,80))));}});
for(const [name,kind,host,port] of T){ok[name]=0;(async()=>{let next=Date.now();for(;;){const t0=Date.now();const e=await once(kind,host,port);
if(e===null)ok[name]++;else log({t:t0,ms:Date.now()-t0,target:name,error:String(e)});
next+=100;const wait=next-Date.now();if(wait>0)await new Promise((r)=>setTimeout(r,wait));else next=Date.now();}})();}
setInterval(()=>{log({t:Date.now(),ok});for(const k in ok)ok[k]=0;},1000);`;

/** Pods the site runs when all is well. */
export const EXPECTED_PODS = 3;

export function backendYaml(site: string): string {
  return deploymentYaml('backend', BACKEND, { site, replicas: 2, readiness: '        readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}\n' });
}

export function servicesYaml(site: string): string {
  const service = (name: string, type: string, port: number, target: number): string => `apiVersion: v1
kind: Service
metadata: {name: ${name}, annotations: {svc.io/sites: "system/${site}", svc.io/proxy-type: ${type}}}
spec:
  selector: {app: backend}
  ports:
  - {name: p, port: ${port}, targetPort: ${target}}
`;
  return `${service('web', 'HTTP_PROXY', 80, 8080)}---\n${service('echo', 'TCP_PROXY', 9000, 9000)}`;
}

export function clientYaml(site: string, clusterIPs: { web: string; echo: string }): string {
  return deploymentYaml('client', CLIENT, {
    site,
    replicas: 1,
    mounts: `        env:
        - {name: WEB_IP, value: "${clusterIPs.web}"}
        - {name: ECHO_IP, value: "${clusterIPs.echo}"}
        volumeMounts: [{name: out, mountPath: /out}]
`,
    volumes: '      volumes: [{name: out, emptyDir: {}}]\n',
  });
}

export interface FailedCall {
  readonly t: number;
  readonly ms: number;
  readonly target: string;
  readonly error: string;
}

interface Tally {
  readonly t: number;
  readonly ok: Record<string, number>;
}

export interface CallsInWindow {
  readonly succeeded: number;
  readonly failed: readonly FailedCall[];
  /** Stretches of more than 3 s without the client's once-a-second line (the client itself not running). */
  readonly silences: ReadonlyArray<{ from: number; to: number }>;
}

/** The client's call log on the site's disk: `<agent home>/runc/<site>/pods/<uid>/…/calls.jsonl`. */
export class CallLog {
  private path: string | undefined;

  constructor(private readonly podDir: string) {}

  private find(dir: string, depth: number): string | undefined {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isFile() && entry.name === 'calls.jsonl') return path;
      if (entry.isDirectory() && !entry.isSymbolicLink() && depth < 8) {
        const found = this.find(path, depth + 1);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  }

  /** Whether the client has written anything yet. */
  exists(): boolean {
    this.path ??= this.find(this.podDir, 0);
    return this.path !== undefined && statSync(this.path).size > 0;
  }

  private entries(): Array<FailedCall | Tally> {
    this.path ??= this.find(this.podDir, 0);
    if (this.path === undefined) throw new Error(`the client's calls.jsonl is not under ${this.podDir}`);
    const entries: Array<FailedCall | Tally> = [];
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        entries.push(JSON.parse(line) as FailedCall | Tally);
      } catch {
        // the line being written as we read
      }
    }
    return entries;
  }

  /** The calls that began in [from, to) (the once-a-second lines count the successes of the second before them). */
  window(from: number, to: number): CallsInWindow {
    const entries = this.entries().filter((e) => e.t >= from && e.t < to);
    const failed = entries.filter((e): e is FailedCall => 'error' in e);
    const tallies = entries.filter((e): e is Tally => 'ok' in e);
    const succeeded = tallies.reduce((sum, tally) => sum + Object.values(tally.ok).reduce((a, b) => a + b, 0), 0);
    const silences: Array<{ from: number; to: number }> = [];
    let previous = from;
    for (const tally of [...tallies, { t: Math.min(to, Date.now()), ok: {} }]) {
      if (tally.t - previous > 3000) silences.push({ from: previous, to: tally.t });
      previous = tally.t;
    }
    return { succeeded, failed, silences };
  }

  /** Whether every target answered in the last `seconds` whole seconds with no failure. */
  healthy(seconds: number): boolean {
    const now = Date.now();
    const recent = this.window(now - seconds * 1000 - 1000, now);
    return recent.failed.length === 0 && recent.silences.length === 0 && recent.succeeded >= seconds * 4 * 5;
  }
}
