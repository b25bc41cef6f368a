import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { toolPath } from '../../src/testing/tools.js';
import { parse as parseYaml } from 'yaml';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { podNamespaceName } from '../../src/site-agent/runtimes/runc/index.js';
import { startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { curlIn, deploymentYaml, GRPC_SERVER, HTTP_SERVER, runIn, serviceYaml, TCP_SERVER } from './support/service-workloads.js';
import { waitFor } from './support/wait-for.js';

interface Pod extends KubeObject {
  status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> };
}
interface Service extends KubeObject {
  spec: { clusterIP: string };
}

const SITE = 'ce-a';
const GRPC_CLIENT = fileURLToPath(new URL('./support/grpc-echo-client.js', import.meta.url));
/** An HTTPS server on 8443 with the Secret mounted at /tls: says the pod and the server name the client asked for. */
const TLS_SERVER = `const fs=require('fs'),os=require('os');require('https').createServer({key:fs.readFileSync('/tls/tls.key'),cert:fs.readFileSync('/tls/tls.crt')},(q,s)=>s.end(os.hostname()+' '+q.socket.servername)).listen(8443)`;
const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe('Services carry traffic on a runc site', () => {
  let env: RuncSiteEnv;
  let client: string;
  before(async () => {
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }]);
    await env.ok(['apply', '-f', '-'], deploymentYaml('web', HTTP_SERVER, { site: SITE, readiness: '        readinessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 1, failureThreshold: 1}\n' }));
    await env.ok(['apply', '-f', '-'], deploymentYaml('echo', TCP_SERVER, { site: SITE }));
    await env.ok(['apply', '-f', '-'], deploymentYaml('client', 'setInterval(()=>{},1e9)', { site: SITE, replicas: 1 }));
    await env.ok(['apply', '-f', '-'], serviceYaml('web', { app: 'web', site: SITE, ports: [{ name: 'http', port: 80, targetPort: 8080 }] }));
    await env.ok(['apply', '-f', '-'], serviceYaml('echo', { app: 'echo', site: SITE, ports: [{ name: 'tcp', port: 9000, targetPort: 9000 }] }));
    const clientPod = await waitFor('the client pod', async () => (await readyPods('client'))[0], { timeoutMs: 60_000 });
    client = podNamespaceName(env.netns(SITE), clientPod.metadata.uid ?? '');
    await waitFor('both web pods ready', async () => ((await readyPods('web')).length === 2 ? true : undefined), { timeoutMs: 60_000 });
    await waitFor('both echo pods ready', async () => ((await readyPods('echo')).length === 2 ? true : undefined), { timeoutMs: 60_000 });
  });
  after(async () => {
    await env?.close();
  });

  const readyPods = async (app: string): Promise<Pod[]> =>
    ((await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items ?? []).filter((p) => p.metadata.deletionTimestamp === undefined && isReady(p));
  const clusterIP = async (name: string): Promise<string> => ((await env.read<Service>(`api/v1/namespaces/default/services/${name}`)) as Service).spec.clusterIP;

  it('TCP_PROXY (the default): each connection to the ClusterIP reaches a ready pod of the site, both are used, half-close respected', async () => {
    const ip = await clusterIP('echo');
    const script = `const c=require('net').connect(9000,'${ip}',()=>{c.end('x'.repeat(100000));});let r='';c.on('data',(d)=>r+=d);c.on('close',()=>console.log(r));c.on('error',(e)=>{console.log('ERR '+e.code);});`;
    const answers = await waitFor('answers through the proxy', async () => {
      const ran = await runIn(client, process.execPath, ['-e', script]);
      return /^echo-\S+ 100000$/.test(ran.stdout.trim()) ? ran.stdout.trim() : undefined;
    }, { timeoutMs: 15_000 });
    assert.match(answers, /^echo-\S+ 100000$/);
    const pods = new Set<string>();
    for (let i = 0; i < 8; i++) pods.add((await runIn(client, process.execPath, ['-e', script])).stdout.trim().split(' ')[0] ?? '');
    assert.equal(pods.size, 2, `both pods answered: ${[...pods].join(', ')}`);
  });

  it('names resolve inside pods: <service>, <service>.<namespace>, the FQDN', async () => {
    const ip = await clusterIP('web');
    for (const name of ['web', 'web.default', 'web.default.svc.cluster.local']) {
      const ran = await env.kubectl(['exec', 'deploy/client', '-c', 'c', '--', 'node', '-e', `require('dns').lookup('${name}',(e,a)=>console.log(e?e.code:a))`]);
      assert.equal(ran.stdout.trim(), ip, `${name}: ${ran.stderr}`);
    }
    const unknown = await env.kubectl(['exec', 'deploy/client', '-c', 'c', '--', 'node', '-e', `require('dns').lookup('nope',(e,a)=>console.log(e?e.code:a))`]);
    assert.equal(unknown.stdout.trim(), 'ENOTFOUND');
  });

  it('HTTP_PROXY: per-request balancing, X-Forwarded-For/-Proto, and a 503 naming the Service when nothing is ready', async () => {
    await env.ok(['annotate', 'service', 'web', 'svc.io/proxy-type=HTTP_PROXY']);
    const ip = await clusterIP('web');
    const clientIP = ((await readyPods('client'))[0] as Pod).status?.podIP ?? '';
    const seen = await waitFor('HTTP mode (X-Forwarded-For set)', async () => {
      const ran = await curlIn(client, [`http://${ip}/`]);
      try {
        const body = JSON.parse(ran.stdout) as { xff: string | null };
        return body.xff !== null ? body : undefined;
      } catch {
        return undefined;
      }
    }, { timeoutMs: 5000 });
    assert.deepEqual({ xff: seen.xff }, { xff: clientIP });
    // One keep-alive connection, several requests: both pods answer.
    const ran = await curlIn(client, ['-w', '\\n', ...Array.from({ length: 6 }, () => `http://${ip}/`)]);
    const bodies = ran.stdout.trim().split('\n').map((line) => JSON.parse(line) as { pod: string; xfp: string });
    assert.equal(new Set(bodies.map((b) => b.pod)).size, 2, ran.stdout);
    assert.ok(bodies.every((b) => b.xfp === 'http'));
  });

  it('HTTP_PROXY answers 503 with a body naming the Service when no endpoint of the site is ready', async () => {
    await env.ok(['apply', '-f', '-'], serviceYaml('nobody', { app: 'none', site: SITE, ports: [{ name: 'http', port: 80, targetPort: 8080 }], annotations: { 'svc.io/proxy-type': 'HTTP_PROXY' } }));
    const ip = await clusterIP('nobody');
    const ran = await waitFor('the 503', async () => {
      const answer = await curlIn(client, ['-w', ' %{http_code}', `http://${ip}/`]);
      return answer.stdout.endsWith(' 503') ? answer.stdout : undefined;
    }, { timeoutMs: 5000 });
    assert.match(ran, /no ready endpoint of Service default\/nobody port 80 on this site 503$/);
  });

  it('a gRPC client (@grpc/grpc-js) reaches a gRPC server through HTTP_PROXY with http2-enable: unary and streaming, trailers intact, both pods used', async () => {
    await env.ok(['apply', '-f', '-'], deploymentYaml('grpc', GRPC_SERVER, { site: SITE }));
    await env.ok(['apply', '-f', '-'], serviceYaml('grpc', { app: 'grpc', site: SITE, ports: [{ name: 'grpc', port: 50051, targetPort: 50051 }], annotations: { 'svc.io/proxy-type': 'HTTP_PROXY', 'svc.io/http2-enable': 'true' } }));
    await waitFor('both grpc pods ready', async () => ((await readyPods('grpc')).length === 2 ? true : undefined), { timeoutMs: 60_000 });
    const ip = await clusterIP('grpc');
    const result = await waitFor('gRPC through the proxy', async () => {
      const ran = await runIn(client, process.execPath, [GRPC_CLIENT, `${ip}:50051`, '8', '3']);
      const parsed = JSON.parse(ran.stdout.trim() || '{}') as { unaries?: Array<{ reply: string; trailer: string | null }>; streamed?: { replies: string[]; code: number; trailer: string | null }; error?: string };
      return parsed.unaries !== undefined && new Set(parsed.unaries.map((u) => u.trailer)).size === 2 ? parsed : undefined;
    }, { timeoutMs: 15_000 });
    for (const [i, unary] of (result.unaries ?? []).entries()) assert.equal(unary.reply, `${unary.trailer ?? '?'}:u${i}`, 'the reply and the trailer come from the same pod');
    const streamed = result.streamed as { replies: string[]; code: number; trailer: string };
    assert.equal(streamed.code, 0);
    assert.deepEqual(streamed.replies, [0, 1, 2].map((i) => `${streamed.trailer}:${i}`));
  });

  it('TCP_PROXY_WITH_SNI: TLS routed by server name without terminating it, extra names from svc.io/sni-names, unknown names refused', async () => {
    const dir = env.dir;
    execFileSync(toolPath('openssl'), ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=tls', '-addext', 'subjectAltName=DNS:tls,DNS:tls.default,DNS:tls.default.svc.cluster.local,DNS:www.example.test', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')], { stdio: 'ignore' });
    await env.ok(['create', 'secret', 'tls', 'tls-cert', `--cert=${join(dir, 'tls.crt')}`, `--key=${join(dir, 'tls.key')}`]);
    await env.ok(['annotate', 'secret', 'tls-cert', 'svc.io/sites=system/ce-a']);
    await env.ok(['apply', '-f', '-'], deploymentYaml('tls', TLS_SERVER, { site: SITE, mounts: '        volumeMounts: [{name: tls, mountPath: /tls}]\n', volumes: '      volumes: [{name: tls, secret: {secretName: tls-cert}}]\n' }));
    await env.ok(['apply', '-f', '-'], serviceYaml('tls', { app: 'tls', site: SITE, ports: [{ name: 'https', port: 443, targetPort: 8443 }], annotations: { 'svc.io/proxy-type': 'TCP_PROXY_WITH_SNI', 'svc.io/sni-names': 'www.example.test' } }));
    await waitFor('both tls pods ready', async () => ((await readyPods('tls')).length === 2 ? true : undefined), { timeoutMs: 60_000 });
    const ip = await clusterIP('tls');
    const get = (name: string): Promise<{ status: number | null; stdout: string }> => curlIn(client, ['--cacert', join(dir, 'tls.crt'), '--resolve', `${name}:443:${ip}`, `https://${name}/`]);
    const first = await waitFor('TLS through the proxy', async () => {
      const ran = await get('tls.default.svc.cluster.local');
      return ran.status === 0 ? ran.stdout : undefined;
    }, { timeoutMs: 10_000 });
    assert.match(first, /^tls-\S+ tls\.default\.svc\.cluster\.local$/, 'the server saw the name: TLS was not terminated');
    const pods = new Set<string>();
    for (const name of ['tls', 'tls.default', 'www.example.test', 'tls', 'tls.default', 'www.example.test']) {
      const ran = await get(name);
      assert.equal(ran.status, 0, `${name}: curl ${String(ran.status)}`);
      assert.equal(ran.stdout.split(' ')[1], name);
      pods.add(ran.stdout.split(' ')[0] ?? '');
    }
    assert.equal(pods.size, 2, 'both pods answered');
    const unknown = await curlIn(client, ['-k', '--resolve', `other.example.test:443:${ip}`, 'https://other.example.test/']);
    assert.notEqual(unknown.status, 0, 'an unknown name is refused');
    const plain = await curlIn(client, [`http://${ip}:443/`]);
    assert.notEqual(plain.status, 0, 'a connection without a TLS hello is refused');
  });

  it('a pod going away moves traffic to the other with no failed request; a failing readiness probe takes its pod out within its period', async () => {
    await env.ok(['annotate', '--overwrite', 'service', 'web', 'svc.io/proxy-type=TCP_PROXY']);
    const ip = await clusterIP('web');
    // Requests in a loop while the ReplicaSet removes one of the two pods (pods are not deleted by hand through the vK8s).
    const loop = `const http=require('http');let ok=0,failed=0;const end=Date.now()+7000;const one=()=>{if(Date.now()>end){console.log(JSON.stringify({ok,failed}));return;}http.get({host:'${ip}',port:80,path:'/',agent:false},(r)=>{r.resume();r.on('end',()=>{r.statusCode===200?ok++:failed++;setTimeout(one,20);});}).on('error',()=>{failed++;setTimeout(one,20);});};one();`;
    const running = runIn(client, process.execPath, ['-e', loop]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await env.ok(['scale', 'deployment', 'web', '--replicas=1']);
    const counts = JSON.parse((await running).stdout.trim()) as { ok: number; failed: number };
    assert.ok(counts.ok > 50, JSON.stringify(counts));
    assert.ok(counts.failed <= 1, `at most the request in flight fails: ${JSON.stringify(counts)}`);
    await env.ok(['scale', 'deployment', 'web', '--replicas=2']);
    await waitFor('two web pods ready again', async () => ((await readyPods('web')).length === 2 ? true : undefined), { timeoutMs: 60_000 });
    const [first, second] = await readyPods('web');
    assert.ok(first !== undefined && second !== undefined);
    assert.equal((await curlIn(client, [`http://${first.status?.podIP ?? ''}:8080/unready`])).stdout, 'unready');
    await waitFor('only the other pod answers', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => curlIn(client, [`http://${ip}/`])));
      return answers.every((a) => a.stdout.includes(`"pod":"${second.metadata.name ?? ''}"`)) ? true : undefined;
    }, { timeoutMs: 5000 });
  });

  it('Endpoints carry the pods\' real IPs and their site\'s node; a port the proxy cannot carry is an Event on the Service', async () => {
    const addresses = JSON.parse(await env.ok(['get', 'endpoints', 'echo', '-o', 'jsonpath={.subsets[*].addresses}'])) as Array<{ ip: string; nodeName: string }>;
    const pods = await readyPods('echo');
    assert.deepEqual(addresses.map((a) => a.ip).sort(), pods.map((p) => p.status?.podIP ?? '').sort());
    assert.ok(addresses.every((a) => a.nodeName === `${SITE}-n0`), JSON.stringify(addresses));
    await env.ok(['apply', '-f', '-'], `apiVersion: v1
kind: Service
metadata: {name: dns-udp, annotations: {svc.io/sites: "system/${SITE}"}}
spec:
  selector: {app: echo}
  ports: [{name: dns, port: 53, protocol: UDP}]
`);
    const event = await waitFor('the Warning Event', async () => {
      const events = (await env.read<{ items: Array<{ reason?: string; message?: string; involvedObject?: { kind?: string; name?: string }; source?: { component?: string } }> }>('api/v1/namespaces/default/events'))?.items ?? [];
      return events.find((e) => e.involvedObject?.kind === 'Service' && e.involvedObject.name === 'dns-udp' && e.source?.component === 'edgeplane-site-proxy');
    }, { timeoutMs: 10_000 });
    assert.match(event.message ?? '', /53\/UDP is not proxied: the site proxy carries TCP only \(site ce-a\)/);
  });

  it('pods of another virtual cluster on the same site can neither reach the Services nor resolve their names', async () => {
    // A virtual cluster is one per platform namespace: vk2 lives in namespace team, on the same site.
    for (const [path, body] of [
      ['/api/web/namespaces', { metadata: { name: 'team' } }],
      ['/api/config/namespaces/team/virtual_sites', { metadata: { name: 'edge' }, spec: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['edge'] } } }],
      ['/api/config/namespaces/team/virtual_k8ss', { metadata: { name: 'vk2' }, spec: { vsite_refs: [{ namespace: 'team', name: 'edge' }] } }],
    ] as const) {
      const created = await env.h.call('POST', path, { body });
      assert.equal(created.status, 200, `${path}: ${created.body}`);
    }
    const vk2 = '/api/vk8s/namespaces/team/vk2';
    const made = await waitFor('a Deployment in vk2', async () => {
      const answer = await env.h.call('POST', `${vk2}/apis/apps/v1/namespaces/team/deployments`, { body: parseYaml(deploymentYaml('intruder', 'setInterval(()=>{},1e9)', { site: SITE, replicas: 1 })) as unknown });
      return answer.status === 201 ? true : undefined;
    }, { timeoutMs: 15_000 });
    assert.ok(made);
    const intruder = await waitFor('the vk2 pod running', async () => {
      const answer = await env.h.call('GET', `${vk2}/api/v1/namespaces/team/pods?labelSelector=app%3Dintruder`);
      const pod = answer.status === 200 ? answer.json<{ items: Pod[] }>().items.find(isReady) : undefined;
      return pod;
    }, { timeoutMs: 60_000 });
    const netns = podNamespaceName(env.netns(SITE), intruder.metadata.uid ?? '');
    const ip = await clusterIP('echo');
    const script = `const c=require('net').connect(9000,'${ip}',()=>c.end('x'));let r='';c.on('data',(d)=>r+=d);c.on('close',()=>console.log(r===''?'nothing':r));
c.on('error',(e)=>console.log('ERR '+e.code));setTimeout(()=>{console.log('TIMEOUT');process.exit(0)},3000).unref();`;
    // Its cluster's own DNS server is there (its names resolve through it) but knows nothing of vk1's Services.
    const resolv = readFileSync(join(env.home(SITE), 'runc', SITE, 'pods', intruder.metadata.uid ?? '', 'etc-resolv.conf'), 'utf8');
    const own = /nameserver (\S+)/.exec(resolv)?.[1] ?? '';
    const vk1Resolv = readFileSync(join(env.home(SITE), 'runc', SITE, 'pods', ((await readyPods('client'))[0] as Pod).metadata.uid ?? '', 'etc-resolv.conf'), 'utf8');
    assert.notEqual(own, /nameserver (\S+)/.exec(vk1Resolv)?.[1], 'each virtual cluster has its own name server');
    const lookup = await runIn(netns, process.execPath, ['-e', `const r=new (require('dns').Resolver)();r.setServers(['${own}']);r.resolve4('echo.default.svc.cluster.local',(e,a)=>console.log(e?e.code:a.join()))`]);
    assert.equal(lookup.stdout.trim(), 'ENOTFOUND');
    const refused = await runIn(netns, process.execPath, ['-e', script]);
    assert.equal(refused.stdout.trim(), 'TIMEOUT', 'no answer at all, not even a reset: the site\'s filter drops it before the proxy');
    const allowed = await runIn(client, process.execPath, ['-e', script]);
    assert.match(allowed.stdout.trim(), /^echo-\S+ 1$/, 'the same connection from a vk1 pod is served');
    const deleted = await env.h.call('DELETE', '/api/config/namespaces/team/virtual_k8ss/vk2');
    assert.equal(deleted.status, 200, deleted.body);
  });

  it('after an agent restart the adopted pods reach their Services and names again', async () => {
    await env.restartAgent(SITE);
    const ip = await clusterIP('echo');
    const script = `const c=require('net').connect(9000,'${ip}',()=>c.end('xy'));let r='';c.on('data',(d)=>r+=d);c.on('close',()=>console.log(r));c.on('error',(e)=>console.log('ERR '+e.code));`;
    const answer = await waitFor('the Service answers again', async () => {
      const ran = await runIn(client, process.execPath, ['-e', script]);
      return /^echo-\S+ 2$/.test(ran.stdout.trim()) ? ran.stdout.trim() : undefined;
    }, { timeoutMs: 20_000 });
    assert.match(answer, /^echo-\S+ 2$/);
    const lookup = await env.kubectl(['exec', 'deploy/client', '-c', 'c', '--', 'node', '-e', `require('dns').lookup('echo',(e,a)=>console.log(e?e.code:a))`]);
    assert.equal(lookup.stdout.trim(), ip, lookup.stderr);
  });
});
