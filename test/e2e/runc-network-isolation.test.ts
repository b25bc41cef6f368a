import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { podNamespaceName } from '../../src/site-agent/runtimes/runc/index.js';
import { tool, toolPath } from '../../src/testing/tools.js';
import { ARP_FORGER, dnsProbe, httpProbe, RECORDING_SERVER, tcpProbe, udpSender } from './support/network-probes.js';
import { runIn, serviceYaml } from './support/service-workloads.js';
import { startSharedRuncSite, type SharedCluster, type SharedPod, type SharedRuncSite } from './support/shared-runc-site.js';
import { waitFor } from './support/wait-for.js';

const SITE = 'ce-shared';
const IDLE = 'setInterval(()=>{},1e9)';

/** A Deployment of one pod on the site running `script` with node on the host image; `extra` is more of the container's fields. */
function deployment(name: string, script: string, extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: "system/${SITE}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: host
        command: ["node", "-e", ${JSON.stringify(script)}]
${extra}`;
}

/** The site gateway's neighbour entry for `ip`: its MAC, or '' when it has none. */
function gatewayNeighbour(netns: string, ip: string): string {
  const shown = execFileSync(toolPath('ip'), ['-n', netns, 'neigh', 'show', ip], { encoding: 'utf8' });
  return /lladdr (\S+)/.exec(shown)?.[1] ?? '';
}

/** A pod's MAC, as its own namespace shows it. */
function macOf(podNetns: string): string {
  const shown = execFileSync(toolPath('ip'), ['-n', podNetns, 'link', 'show', 'eth0'], { encoding: 'utf8' });
  return /link\/ether (\S+)/.exec(shown)?.[1] ?? '';
}

/** The samples of `metric` in a Prometheus text page whose labels include every one of `labels`, summed. */
function metricSum(page: string, metric: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.split(' ').pop());
  }
  return sum;
}

const DROPS = 'edgeplane_site_network_dropped_packets_total';

describe('network isolation on a runc site shared by two virtual clusters', () => {
  let env: SharedRuncSite;
  /** The attacker's forged ARP replies counted by the first test. */
  let arpCounted = 0;
  const netnsBefore = new Set<string>();
  const pod = async (cluster: SharedCluster, app: string): Promise<SharedPod> =>
    waitFor(`${cluster}'s ${app} pod ready`, async () => (await env.readyPods(cluster, app))[0], { timeoutMs: 90_000 });
  const podNetns = (p: SharedPod): string => podNamespaceName(env.netns, p.metadata.uid ?? '');
  const ipOf = (p: SharedPod): string => p.status?.podIP ?? '';
  const clusterIP = async (cluster: SharedCluster, name: string): Promise<string> =>
    (await env.ok(cluster, ['get', 'service', name, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  /** Runs node -e `script` in the cluster's Deployment `app` (kubectl exec: the container's own capabilities). */
  const nodeIn = async (cluster: SharedCluster, app: string, script: string): Promise<string> => (await env.ok(cluster, ['exec', `deploy/${app}`, '-c', 'c', '--', 'node', '-e', script])).trim();
  const nameserverOf = (p: SharedPod): string => /nameserver (\S+)/.exec(readFileSync(join(env.home, 'runc', SITE, 'pods', p.metadata.uid ?? '', 'etc-resolv.conf'), 'utf8'))?.[1] ?? '';

  before(async () => {
    for (const line of execFileSync(toolPath('ip'), ['netns', 'list'], { encoding: 'utf8' }).split('\n')) netnsBefore.add(line.split(' ')[0] ?? '');
    env = await startSharedRuncSite(SITE);
    const readiness = '        readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}\n';
    await env.ok('vk1', ['apply', '-f', '-'], deployment('victim', RECORDING_SERVER, readiness));
    await env.ok('vk1', ['apply', '-f', '-'], deployment('friend', IDLE));
    await env.ok('vk1', ['apply', '-f', '-'], serviceYaml('victim', { app: 'victim', site: SITE, ports: [{ name: 'http', port: 80, targetPort: 8080 }] }));
    await env.ok('vk2', ['apply', '-f', '-'], deployment('attacker', IDLE, '        securityContext: {capabilities: {add: [NET_ADMIN, NET_RAW]}}\n'));
    await env.ok('vk2', ['apply', '-f', '-'], deployment('neighbour', RECORDING_SERVER, readiness));
    await env.ok('vk2', ['apply', '-f', '-'], deployment('probe', IDLE));
    await env.ok('vk2', ['apply', '-f', '-'], serviceYaml('neighbour', { app: 'neighbour', site: SITE, ports: [{ name: 'http', port: 80, targetPort: 8080 }] }));
    for (const [cluster, app] of [['vk1', 'victim'], ['vk1', 'friend'], ['vk2', 'attacker'], ['vk2', 'neighbour'], ['vk2', 'probe']] as const) await pod(cluster, app);
  });
  after(async () => {
    await env?.close();
    const left = execFileSync(toolPath('ip'), ['netns', 'list'], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.split(' ')[0] ?? '')
      .filter((name) => name !== '' && !netnsBefore.has(name))
      .filter((name) => env === undefined || name === env.netns || [...env.seenUids].some((uid) => podNamespaceName(env.netns, uid) === name));
    assert.deepEqual(left, [], 'the test left network namespaces behind');
  });

  /** Forges ARP replies from the attacker (kubectl exec: its own NET_RAW) saying the victim's IP is at the attacker's MAC. */
  const forgeArp = async (victimIP: string, gateway: string): Promise<void> => {
    const sent = await env.ok('vk2', ['exec', 'deploy/attacker', '-c', 'c', '--', 'python3', '-c', ARP_FORGER, 'eth0', victimIP, gateway, '30', '3']);
    assert.match(sent, /sent 30/);
  };

  it('a forged ARP reply from a pod with NET_RAW is dropped and counted: the gateway keeps the victim\'s MAC', async () => {
    const victim = await pod('vk1', 'victim');
    const attacker = await pod('vk2', 'attacker');
    const friend = await pod('vk1', 'friend');
    const gateway = (await env.ok('vk2', ['get', 'pod', attacker.metadata.name ?? '', '-o', 'jsonpath={.status.hostIP}'])).trim();
    const victimMac = macOf(podNetns(victim));
    await waitFor('the gateway\'s neighbour entry for the victim', () => Promise.resolve(gatewayNeighbour(env.netns, ipOf(victim)) === victimMac ? true : undefined), { timeoutMs: 10_000 });
    await forgeArp(ipOf(victim), gateway);
    assert.equal(gatewayNeighbour(env.netns, ipOf(victim)), victimMac, 'the gateway\'s entry for the victim still names the victim');
    assert.notEqual(macOf(podNetns(attacker)), victimMac);
    // The victim's Service still answers its own cluster.
    const answer = await nodeIn('vk1', 'friend', httpProbe(`http://${await clusterIP('vk1', 'victim')}/`));
    assert.match(answer, new RegExp(`^victim-\\S+ `), `the victim answers through its Service (friend ${ipOf(friend)})`);
    const page = await env.metrics();
    arpCounted = metricSum(page, DROPS, { site: SITE, namespace: 'team', pod: attacker.metadata.name ?? '', reason: 'arp_spoofed' });
    assert.ok(arpCounted >= 30, `forged ARP replies counted:\n${page.split('\n').filter((l) => l.startsWith(DROPS)).join('\n')}`);
    // And logged by the agent's next resync (every 10 s): a warning naming the pod, its cluster and address.
    const logged = await waitFor('the forged ARP replies logged', () => {
      const lines = env.agentLog().split('\n').filter((line) => line.includes('"msg":"site network dropped packets with forged addresses"'));
      const line = lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry['pod'] === attacker.metadata.name && entry['reason'] === 'arp_spoofed');
      return Promise.resolve(line);
    }, { timeoutMs: 30_000, intervalMs: 500 });
    assert.equal(logged['level'], 40, 'a warning');
    assert.equal(logged['ip'], ipOf(attacker));
    assert.match(String(logged['cluster']), /:team:vk2$/, 'its virtual cluster');
  });

  it('a pod with NET_ADMIN that takes the victim\'s IP or MAC sends nothing from them; its own address still works', async () => {
    const victim = await pod('vk1', 'victim');
    const attacker = await pod('vk2', 'attacker');
    const neighbour = await pod('vk2', 'neighbour');
    const ownMac = macOf(podNetns(attacker));
    const victimMac = macOf(podNetns(victim));
    await env.ok('vk2', ['exec', 'deploy/attacker', '-c', 'c', '--', 'ip', 'addr', 'add', `${ipOf(victim)}/32`, 'dev', 'eth0']);
    try {
      // Its own address first: the neighbour then resolves by an ARP request from it (one from the taken IP is dropped, and
      // the kernel keeps asking with the first queued packet's source, so own datagrams behind it would go nowhere).
      assert.equal(await nodeIn('vk2', 'attacker', udpSender('', ipOf(neighbour), 9999, 'own-ip')), 'sent');
      assert.equal(await nodeIn('vk2', 'attacker', udpSender(ipOf(victim), ipOf(neighbour), 9999, 'taken-ip')), 'sent');
      await env.ok('vk2', ['exec', 'deploy/attacker', '-c', 'c', '--', 'ip', 'link', 'set', 'eth0', 'address', victimMac]);
      assert.equal(await nodeIn('vk2', 'attacker', udpSender('', ipOf(neighbour), 9999, 'taken-mac')), 'sent');
    } finally {
      await env.kubectl('vk2', ['exec', 'deploy/attacker', '-c', 'c', '--', 'ip', 'link', 'set', 'eth0', 'address', ownMac]);
      await env.kubectl('vk2', ['exec', 'deploy/attacker', '-c', 'c', '--', 'ip', 'addr', 'del', `${ipOf(victim)}/32`, 'dev', 'eth0']);
    }
    const seen = JSON.parse(await nodeIn('vk2', 'probe', httpProbe(`http://${ipOf(neighbour)}:8080/udp`))) as string[];
    assert.ok(seen.includes(`${ipOf(attacker)} own-ip`), `the attacker's own address reaches its cluster: ${seen.join(', ')}`);
    assert.deepEqual(seen.filter((line) => line.endsWith('taken-ip') || line.endsWith('taken-mac')), [], 'nothing sent from the taken IP or MAC arrived');
    // The victim is untouched: its own cluster still reaches it directly.
    assert.match(await nodeIn('vk1', 'friend', httpProbe(`http://${ipOf(victim)}:8080/`)), /^victim-\S+ /);
    const page = await env.metrics();
    const counted = (reason: string): number => metricSum(page, DROPS, { site: SITE, namespace: 'team', pod: attacker.metadata.name ?? '', reason });
    assert.ok(counted('ip_spoofed') >= 10, `datagrams from the taken IP counted: ${counted('ip_spoofed')}`);
    // A new MAC empties the pod's neighbour table: its first frame from the taken MAC is an ARP request for the neighbour.
    assert.ok(counted('mac_spoofed') >= 1, `frames from the taken MAC counted: ${counted('mac_spoofed')}`);
  });

  it('a pod reaches its own cluster (pods, Services, names, the relay) and nothing of another: pod IPs, name server and ClusterIPs are silent', async () => {
    const victim = await pod('vk1', 'victim');
    const friend = await pod('vk1', 'friend');
    const neighbour = await pod('vk2', 'neighbour');
    const probe = await pod('vk2', 'probe');
    const gateway = (await env.ok('vk2', ['get', 'pod', probe.metadata.name ?? '', '-o', 'jsonpath={.status.hostIP}'])).trim();
    const [vk1Service, vk2Service] = [await clusterIP('vk1', 'victim'), await clusterIP('vk2', 'neighbour')];
    const [vk1Dns, vk2Dns] = [nameserverOf(friend), nameserverOf(probe)];
    assert.notEqual(vk1Dns, vk2Dns);
    // Another cluster: no answer at all (not a refusal).
    assert.equal(await nodeIn('vk2', 'probe', tcpProbe(ipOf(victim), 8080)), 'TIMEOUT', 'another cluster\'s pod IP');
    assert.equal(await nodeIn('vk2', 'probe', dnsProbe(vk1Dns, 'victim.default.svc.cluster.local')), 'ETIMEOUT', 'another cluster\'s name server');
    assert.equal(await nodeIn('vk2', 'probe', tcpProbe(vk1Service, 80)), 'TIMEOUT', 'another cluster\'s ClusterIP');
    assert.equal(await nodeIn('vk1', 'friend', tcpProbe(ipOf(neighbour), 8080)), 'TIMEOUT', 'the other way round');
    // Its own: pods, Services, names, the relay.
    assert.match(await nodeIn('vk2', 'probe', httpProbe(`http://${ipOf(neighbour)}:8080/`)), new RegExp(`^neighbour-\\S+ (::ffff:)?${ipOf(probe)}$`));
    assert.match(await nodeIn('vk2', 'probe', httpProbe(`http://${vk2Service}/`)), /^neighbour-\S+ /);
    assert.equal(await nodeIn('vk2', 'probe', dnsProbe(vk2Dns, 'neighbour.team.svc.cluster.local')), vk2Service);
    assert.equal(await nodeIn('vk2', 'probe', `require('dns').lookup('neighbour',(e,a)=>console.log(e?e.code:a))`), vk2Service);
    assert.equal(await nodeIn('vk2', 'probe', tcpProbe(gateway, 8443)), 'CONNECTED', 'the relay');
    assert.match(await nodeIn('vk1', 'friend', httpProbe(`http://${ipOf(victim)}:8080/`)), new RegExp(`^victim-\\S+ (::ffff:)?${ipOf(friend)}$`));
    assert.match(await nodeIn('vk1', 'friend', httpProbe(`http://${vk1Service}/`)), /^victim-\S+ /);
    assert.equal(await nodeIn('vk1', 'friend', dnsProbe(vk1Dns, 'victim.default.svc.cluster.local')), vk1Service);
    // Nothing but the relay on the gateway itself.
    assert.equal(await nodeIn('vk2', 'probe', tcpProbe(gateway, 22)), 'TIMEOUT', 'another port of the gateway');
    const page = await env.metrics();
    assert.ok(metricSum(page, DROPS, { site: SITE, namespace: 'team', pod: probe.metadata.name ?? '', reason: 'isolated' }) >= 3, 'the probe\'s attempts counted');
  });

  it('the rules live in the kernel: with the agent SIGKILLed forged ARP replies are still dropped, and the restarted agent replaces tampered rules', async () => {
    const victim = await pod('vk1', 'victim');
    const friend = await pod('vk1', 'friend');
    const attacker = await pod('vk2', 'attacker');
    const gateway = (await env.ok('vk2', ['get', 'pod', attacker.metadata.name ?? '', '-o', 'jsonpath={.status.hostIP}'])).trim();
    const victimMac = macOf(podNetns(victim));
    await env.killAgent();
    // No agent: the forger runs in the attacker's network namespace (as root there: at least the pod's powers).
    const forge = async (): Promise<void> => {
      const ran = await runIn(podNetns(attacker), 'python3', ['-c', ARP_FORGER, 'eth0', ipOf(victim), gateway, '30', '3']);
      assert.match(ran.stdout, /sent 30/, ran.stderr);
    };
    await forge();
    assert.equal(gatewayNeighbour(env.netns, ipOf(victim)), victimMac, 'protected while the agent is down');
    // Someone (an older agent, a person) leaves the site's rules open: flushed, policies accept; the next agent replaces them.
    const nft = tool('nft');
    const nftIn = (...args: string[]): string => execFileSync(toolPath('ip'), ['netns', 'exec', env.netns, nft.path, ...args], { encoding: 'utf8', env: { ...process.env, ...nft.env } });
    type Chain = { family: string; table: string; name: string; hook?: string; prio?: number };
    const chains = (JSON.parse(nftIn('-j', 'list', 'chains')) as { nftables: Array<{ chain?: Chain }> }).nftables.flatMap((item) => (item.chain?.family === 'bridge' ? [item.chain] : []));
    assert.ok(chains.some((chain) => chain.hook !== undefined), 'the site has its bridge rules');
    for (const table of new Set(chains.map((chain) => chain.table))) nftIn('flush', 'table', 'bridge', table);
    for (const { table, name, hook, prio } of chains) {
      if (hook !== undefined) nftIn('add', 'chain', 'bridge', table, name, `{ type filter hook ${hook} priority ${prio ?? 0}; policy accept; }`);
    }
    await forge();
    assert.notEqual(gatewayNeighbour(env.netns, ipOf(victim)), victimMac, 'with the rules flushed the forgery works (the test can tell)');
    // Undo what the forgery did while the rules were open: the gateway's entry, and the friend's (every other reply was broadcast).
    execFileSync(toolPath('ip'), ['-n', env.netns, 'neigh', 'del', ipOf(victim), 'dev', 'site0']);
    execFileSync(toolPath('ip'), ['-n', podNetns(friend), 'neigh', 'flush', 'dev', 'eth0']);
    await env.startAgent();
    await waitFor('the gateway relearns the victim', async () => {
      await runIn(env.netns, process.execPath, ['-e', httpProbe(`http://${ipOf(victim)}:8080/`)]);
      return gatewayNeighbour(env.netns, ipOf(victim)) === victimMac ? true : undefined;
    }, { timeoutMs: 20_000, intervalMs: 500 });
    await forgeArp(ipOf(victim), gateway);
    assert.equal(gatewayNeighbour(env.netns, ipOf(victim)), victimMac, 'protected again once the agent is back');
    // The running pods kept working across the restart: their own cluster reaches them, the other still does not.
    assert.match(await nodeIn('vk1', 'friend', httpProbe(`http://${ipOf(victim)}:8080/`)), /^victim-\S+ /, 'own pod after the restart');
    assert.equal(await nodeIn('vk2', 'probe', tcpProbe(ipOf(victim), 8080)), 'TIMEOUT', 'another cluster\'s pod after the restart');
    // The new agent adopts the HAProxy the killed one left (it kept serving): the own Service answers, the other cluster's still does not.
    const vk1Service = await clusterIP('vk1', 'victim');
    await waitFor('the own Service after the restart', async () => {
      const answer = await nodeIn('vk1', 'friend', httpProbe(`http://${vk1Service}/`));
      return /^victim-\S+ /.test(answer) ? answer : undefined;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    assert.equal(await nodeIn('vk2', 'probe', tcpProbe(vk1Service, 80)), 'TIMEOUT', 'another cluster\'s ClusterIP after the restart');
    // Counted in the kernel: what the first test counted, what was dropped while no agent ran, and now.
    const countedAfter = metricSum(await env.metrics(), DROPS, { pod: attacker.metadata.name ?? '', reason: 'arp_spoofed' });
    assert.ok(countedAfter >= arpCounted + 60, `the counts survive the agent: ${arpCounted} before it was killed, ${countedAfter} now`);
  });
});
