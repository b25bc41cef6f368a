import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { podNamespaceName } from '../../src/site-agent/runtimes/runc/site-network.js';
import { startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { curlIn, deploymentYaml, HTTP_SERVER, runIn, serviceYaml, TCP_SERVER } from './support/service-workloads.js';
import { waitFor } from './support/wait-for.js';

interface Pod extends KubeObject {
  status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> };
}
interface Service extends KubeObject {
  spec: { clusterIP: string };
}

const SITE = 'ce-a';
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
});
