import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { podNamespaceName } from '../../src/site-agent/runtimes/runc/index.js';
import { deploymentYaml, HTTP_SERVER, runIn, serviceYaml, TCP_SERVER, type Ran } from './support/service-workloads.js';
import { startSharedRuncSite, type SharedPod, type SharedRuncSite } from './support/shared-runc-site.js';
import { waitFor } from './support/wait-for.js';

/**
 * The site decides its own data plane (issue 31): its HAProxy and name servers follow the site's
 * own probes, whatever the control plane's copy of its pods says, and an agent restart (SIGKILL or SIGTERM,
 * then a new agent process) adopts the running HAProxy and dnsmasq: traffic never notices.
 */

const SITE = 'ce-dp';
const PODS = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default';

/** The web pods name their port `http` and probe /healthz each second. */
const PROBED = '        ports: [{name: http, containerPort: 8080}]\n        readinessProbe: {httpGet: {path: /healthz, port: http}, periodSeconds: 1, failureThreshold: 1}\n';

/** `n` HTTP GETs of `url` (new connection each): "<status> <pod>" or the error, one per request. */
const HTTP_SAMPLE = `const [url,n]=process.argv.slice(1);const out=[];const one=()=>new Promise((res)=>{const q=require('http').get(url,{agent:false,timeout:2000},(s)=>{s.resume();s.on('end',()=>res(s.statusCode+' '+(s.headers['x-pod']??'')));});q.on('timeout',()=>q.destroy(new Error('timeout')));q.on('error',(e)=>res('ERR '+(e.code??e.message)));});
(async()=>{for(let i=0;i<Number(n);i++)out.push(await one());console.log(JSON.stringify(out));})();`;

/** One TCP exchange with the echo server: its answer, or the error. */
const TCP_SAMPLE = `const [ip]=process.argv.slice(1);const c=require('net').connect(9000,ip,()=>c.end('x'));let r='';c.setTimeout(2000,()=>c.destroy(new Error('timeout')));
c.on('data',(d)=>r+=d);c.on('close',()=>console.log(r||'ERR closed'));c.on('error',(e)=>console.log('ERR '+(e.code??e.message)));`;

/**
 * Every 100 ms until the file `stop` exists: web by ClusterIP (HTTP), web by name (resolved by
 * the pod's own name server, then HTTP to the answer), echo by ClusterIP (TCP). Prints the count
 * of successes and every failure.
 */
const CALLER = `const http=require('http'),net=require('net'),dns=require('dns'),fs=require('fs');
const [webIP,name,echoIP,ns,stop]=process.argv.slice(1);
const r=new dns.Resolver({timeout:1000,tries:1});r.setServers([ns]);
const get=(host)=>new Promise((res)=>{const q=http.get({host,port:80,path:'/',timeout:2000,agent:false},(s)=>{s.resume();s.on('end',()=>res(s.statusCode===200?null:'status '+s.statusCode));});q.on('timeout',()=>q.destroy(new Error('timeout')));q.on('error',(e)=>res(e.code??e.message));});
const byName=()=>new Promise((res)=>r.resolve4(name,(e,a)=>e?res('dns '+e.code):get(a[0]).then(res)));
const tcp=()=>new Promise((res)=>{const c=net.connect(9000,echoIP,()=>c.end('x'));let got='';c.setTimeout(2000,()=>c.destroy(new Error('timeout')));c.on('data',(d)=>got+=d);c.on('error',(e)=>res(e.code??e.message));c.on('close',()=>res(/ 1$/.test(got)?null:'answer '+got));});
let ok=0;const fails=[];
(async()=>{while(!fs.existsSync(stop)){const t=Date.now();for(const [kind,f] of [['ip',()=>get(webIP)],['name',byName],['tcp',tcp]]){const e=await f();if(e===null)ok++;else fails.push(kind+': '+e+' at '+new Date().toISOString());}
await new Promise((w)=>setTimeout(w,Math.max(0,100-(Date.now()-t))));}console.log(JSON.stringify({ok,fails}));})();`;

describe('the site decides its own data plane (runc site, agent in its own process)', () => {
  let env: SharedRuncSite;
  let client: string;
  let nameserver: string;
  const scratch = mkdtempSync(join(tmpdir(), 'ep-dataplane-'));
  const readyPods = (app: string): Promise<SharedPod[]> => env.readyPods('vk1', app);
  const clusterIP = async (name: string): Promise<string> => (await env.ok('vk1', ['get', 'service', name, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  const node = (script: string, args: readonly string[], timeoutMs = 20_000): Promise<Ran> => runIn(client, process.execPath, ['-e', script, ...args], timeoutMs);
  const sample = async (url: string, n: number): Promise<string[]> => JSON.parse((await node(HTTP_SAMPLE, [url, String(n)])).stdout || '[]') as string[];
  const podsOf = async (app: string): Promise<SharedPod[]> => (await env.h.call('GET', `${PODS}/pods?labelSelector=app%3D${app}`)).json<{ items: SharedPod[] }>().items;

  /** Writes the control plane's copy of pod `name` Ready=`ready` through the status subresource, as the node lifecycle controller does. */
  const forceReady = async (name: string, ready: boolean): Promise<void> => {
    const pods = env.h.controlPlane.virtualClusters.storeFor({ group: '', resource: 'pods' });
    assert.ok(pods !== undefined);
    const scope = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' }, dryRun: false, fieldManager: 'node-controller' };
    const value = ready ? 'True' : 'False';
    await pods.update(scope, name, (current) => {
      const status = (current['status'] ?? {}) as { conditions?: Array<{ type: string; status: string }> };
      const conditions = (status.conditions ?? []).map((c) => (c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: value } : c));
      return { ...current, status: { ...status, conditions } };
    }, { subresource: 'status', retryOnConflict: true });
  };
  /** The control plane's Endpoints of `name`: its ready and not-ready addresses. */
  const endpointsOf = async (name: string): Promise<{ ready: string[]; notReady: string[] }> => {
    const subsets = (await env.h.call('GET', `${PODS}/endpoints/${name}`)).json<{ subsets?: Array<{ addresses?: Array<{ ip: string }>; notReadyAddresses?: Array<{ ip: string }> }> }>().subsets ?? [];
    const ips = (addresses: Array<{ ip: string }> | undefined): string[] => (addresses ?? []).map((a) => a.ip);
    return { ready: subsets.flatMap((s) => ips(s.addresses)), notReady: subsets.flatMap((s) => ips(s.notReadyAddresses)) };
  };
  /** The data plane's processes: HAProxy's master and each cluster's dnsmasq, by pid file. */
  const dataPlanePids = (): Record<string, string> => {
    const pids: Record<string, string> = { haproxy: readFileSync(join(env.home, 'runc', SITE, 'service-proxy', 'haproxy', 'haproxy.pid'), 'utf8').trim() };
    const dns = `/run/edgeplane-dns/${env.netns}`;
    for (const cluster of readdirSync(dns)) if (existsSync(join(dns, cluster, 'dnsmasq.pid'))) pids[cluster] = readFileSync(join(dns, cluster, 'dnsmasq.pid'), 'utf8').trim();
    return pids;
  };

  before(async () => {
    env = await startSharedRuncSite(SITE);
    await env.ok('vk1', ['apply', '-f', '-'], deploymentYaml('web', HTTP_SERVER, { site: SITE, replicas: 2, readiness: PROBED }));
    await env.ok('vk1', ['apply', '-f', '-'], deploymentYaml('echo', TCP_SERVER, { site: SITE, replicas: 2 }));
    await env.ok('vk1', ['apply', '-f', '-'], deploymentYaml('client', 'setInterval(()=>{},1e9)', { site: SITE, replicas: 1 }));
    const web = serviceYaml('web', { app: 'web', site: SITE, ports: [{ name: 'http', port: 80, targetPort: 8080 }], annotations: { 'svc.io/proxy-type': 'HTTP_PROXY' } });
    await env.ok('vk1', ['apply', '-f', '-'], web.replace('targetPort: 8080', 'targetPort: http'));
    await env.ok('vk1', ['apply', '-f', '-'], serviceYaml('echo', { app: 'echo', site: SITE, ports: [{ name: 'tcp', port: 9000, targetPort: 9000 }] }));
    const clientPod = await waitFor('the client pod', async () => (await readyPods('client'))[0], { timeoutMs: 90_000 });
    client = podNamespaceName(env.netns, clientPod.metadata.uid ?? '');
    nameserver = /nameserver (\S+)/.exec(readFileSync(join(env.home, 'runc', SITE, 'pods', clientPod.metadata.uid ?? '', 'etc-resolv.conf'), 'utf8'))?.[1] ?? '';
    for (const app of ['web', 'echo']) await waitFor(`both ${app} pods ready`, async () => ((await readyPods(app)).length === 2 ? true : undefined), { timeoutMs: 90_000 });
    const ip = await clusterIP('web');
    await waitFor('web answering through the proxy from both pods', async () => (new Set((await sample(`http://${ip}/`, 6)).filter((s) => s.startsWith('200 '))).size === 2 ? true : undefined), { timeoutMs: 20_000 });
  });
  after(async () => {
    await env?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('agent restarts (SIGKILL, then SIGTERM) are invisible to traffic: no failed call by ClusterIP or by name, the same HAProxy and dnsmasq, following the new agent', async () => {
    const [webIP, echoIP] = [await clusterIP('web'), await clusterIP('echo')];
    const before = dataPlanePids();
    const stop = join(scratch, 'stop-caller');
    const calling = node(CALLER, [webIP, 'web.default.svc.cluster.local', echoIP, nameserver, stop], 180_000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const logged = env.agentLog().length;
    await env.killAgent();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await env.startAgent();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // An upgrade: the agent stops on SIGTERM and leaves the data plane running, as it leaves the pods.
    await env.stopAgent();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await env.startAgent();
    // The new agent reconciles in place: a new Service is a reload of the adopted master.
    await env.ok('vk1', ['apply', '-f', '-'], serviceYaml('later', { app: 'echo', site: SITE, ports: [{ name: 'tcp', port: 9000, targetPort: 9000 }] }));
    const laterIP = await clusterIP('later');
    await waitFor('the new Service answering', async () => (/^echo-\S+ 1$/.test((await node(TCP_SAMPLE, [laterIP])).stdout.trim()) ? true : undefined), { timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    writeFileSync(stop, '');
    const result = JSON.parse((await calling).stdout || '{"ok":0,"fails":["no output"]}') as { ok: number; fails: string[] };
    assert.deepEqual(result.fails, [], `${result.ok} calls succeeded`);
    assert.ok(result.ok > 30, `calls made: ${result.ok}`);
    assert.deepEqual(dataPlanePids(), before, 'the same HAProxy master and dnsmasq');
    const log = env.agentLog().slice(logged);
    for (const line of ['"msg":"Service proxy adopted"', '"msg":"cluster DNS server adopted"']) assert.equal(log.split(line).length - 1, 2, `each new agent logged ${line}`);
  });

  it('the control plane\'s copy of the pods forced Ready=False (a lease expiry) takes nothing out: requests keep succeeding', async () => {
    const [webIP, echoIP] = [await clusterIP('web'), await clusterIP('echo')];
    const names = [...(await podsOf('web')), ...(await podsOf('echo'))].map((p) => p.metadata.name ?? '');
    const force = async (): Promise<void> => {
      for (const name of names) await forceReady(name, false);
    };
    await force();
    await waitFor('the control plane listing no ready web or echo endpoint', async () => {
      const [web, echo] = [await endpointsOf('web'), await endpointsOf('echo')];
      return web.ready.length === 0 && echo.ready.length === 0 && web.notReady.length === 2 ? true : undefined;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    // Keep forcing (the agent may re-assert its pods' status meanwhile) while requests go through the site's Services.
    let forcing = true;
    const forcer = (async () => {
      while (forcing) {
        await force();
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    const seen: string[] = [];
    let notReadySeen = 0;
    for (let round = 0; round < 6; round++) {
      if ((await endpointsOf('web')).ready.length === 0) notReadySeen++;
      seen.push(...(await sample(`http://${webIP}/`, 4)), (await node(TCP_SAMPLE, [echoIP])).stdout.trim());
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    forcing = false;
    await forcer;
    assert.ok(notReadySeen > 0, 'the control plane said not ready during the requests');
    assert.deepEqual(seen.filter((s) => !/^(200 web-\S+|echo-\S+ 1)$/.test(s)), [], seen.join(', '));
    assert.equal(new Set(seen.filter((s) => s.startsWith('200 '))).size, 2, 'both web pods served');
  });

  it('a pod whose readiness probe fails on the site is taken out, even while the control plane\'s copy says it is ready', async () => {
    const webIP = await clusterIP('web');
    const [sick, healthy] = (await podsOf('web')) as [SharedPod, SharedPod];
    const sickName = sick.metadata.name ?? '';
    assert.match((await node(HTTP_SAMPLE, [`http://${sick.status?.podIP ?? ''}:8080/unready`, '1'])).stdout, /200/);
    let forcing = true;
    const forcer = (async () => {
      while (forcing) {
        await forceReady(sickName, true);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    try {
      await waitFor('only the healthy pod answering', async () => ((await sample(`http://${webIP}/`, 4)).every((s) => s === `200 ${healthy.metadata.name ?? ''}`) ? true : undefined), { timeoutMs: 15_000, intervalMs: 200 });
      const seen = await sample(`http://${webIP}/`, 10);
      assert.deepEqual(new Set(seen), new Set([`200 ${healthy.metadata.name ?? ''}`]), seen.join(', '));
    } finally {
      forcing = false;
      await forcer;
    }
  });
});
