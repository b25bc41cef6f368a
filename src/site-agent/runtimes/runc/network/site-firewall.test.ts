import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import type { Server } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger } from '../../../../observability/logger.js';
import { tool, toolPath } from '../../../../testing/tools.js';
import { IpCommand } from '../../../host/index.js';
import { RELAY_PORT } from './control-plane-relay.js';
import { formatAddress, parseCidr, podAddresses } from './ipv4-cidr.js';
import { NetnsSocketBroker } from './netns-broker.js';
import { hostVethName, podMacAddress, podNamespaceName, siteNamespaceName } from './pod-interface.js';
import { SiteNetwork, type PodOwner } from './site-network.js';

/**
 * The site's packet filter on a real site network (namespaces, bridge, veths, nftables): pods
 * are namespaces attached by SiteNetwork, and what runs "in a pod" runs there as root — with
 * every network capability a pod could be given (NET_ADMIN, NET_RAW).
 */

const ip = new IpCommand(toolPath('ip'));
const nft = tool('nft');
const busybox = toolPath('busybox');
const home = mkdtempSync(join(tmpdir(), `site-firewall-test-${randomBytes(3).toString('hex')}`));
const netns = siteNamespaceName(home, 'edge');
/** What the filter logged, one JSON object a line. */
const logged: Array<Record<string, unknown>> = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line !== '') logged.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});
const logger = createLogger({ level: 'info', destination: logStream, format: 'json' });
const options = { ip, nft, netns, cidr: parseCidr('10.244.249.0/28'), filterStateFile: join(home, 'filter.json'), logger };
let network = new SiteNetwork(options);
const brokers: NetnsSocketBroker[] = [];
const servers: Server[] = [];
const owner = (cluster: string, name: string): PodOwner => ({ cluster: { tenant: 't', namespace: cluster, name: 'vk' }, namespace: cluster, name });
const [SERVICE, DNS_A, DNS_B] = ['10.96.7.1', '169.254.20.50', '169.254.20.51'];

/** Runs a program in a namespace; its stdout. */
function runIn(namespace: string, file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve) => execFile(toolPath('ip'), ['netns', 'exec', namespace, file, ...args], { encoding: 'utf8', timeout: 10_000 }, (_error, stdout) => resolve(stdout.trim())));
}

/** From a namespace: CONNECTED, ERR <code> or TIMEOUT (no answer in 1.5 s) for a TCP connection to host:port. */
function connect(namespace: string, host: string, port: number): Promise<string> {
  const script = `const c=require('net').connect({host:'${host}',port:${port}});setTimeout(()=>{console.log('TIMEOUT');process.exit(0)},1500);
c.on('connect',()=>{console.log('CONNECTED');process.exit(0)});c.on('error',(e)=>{console.log('ERR '+e.code);process.exit(0)})`;
  return runIn(namespace, process.execPath, ['-e', script]);
}

/** Listens on host:port inside a namespace, answering each connection with `text`; closing it ends the helper holding the namespace. */
async function serve(namespace: string, host: string, port: number, text: string): Promise<() => void> {
  const broker = new NetnsSocketBroker(ip.path, namespace);
  brokers.push(broker);
  const server = await broker.listen(host, port);
  servers.push(server.on('connection', (socket) => socket.on('error', () => undefined).end(text)));
  return () => {
    server.close();
    broker.close();
  };
}
const stopServing = new Map<string, () => void>();

const neighbourOf = (address: string): string => /lladdr (\S+)/.exec(execFileSync(ip.path, ['-n', netns, 'neigh', 'show', address], { encoding: 'utf8' }))?.[1] ?? '';
const nftIn = (...args: string[]): string => execFileSync(ip.path, ['netns', 'exec', netns, nft.path, ...args], { encoding: 'utf8', env: { ...process.env, ...nft.env } });
const dropsOf = async (uid: string, reason: string): Promise<number> =>
  (await network.filter.drops()).filter((d) => d.pod?.uid === uid && d.reason === reason).reduce((sum, d) => sum + d.packets, 0);

describe('the site packet filter on a real site network', () => {
  const [a1, a2, b1, old] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const addresses = [...podAddresses(options.cidr)].slice(0, 4).map(formatAddress) as [string, string, string, string];
  const pods = (uid: string): string => podNamespaceName(netns, uid);

  before(async () => {
    await network.ensure();
    const [first, second, third] = [...podAddresses(options.cidr)] as [number, number, number];
    await network.attach(a1, first, owner('a', 'a1'));
    await network.attach(a2, second, owner('a', 'a2'));
    await network.attach(b1, third, owner('b', 'b1'));
    await network.filter.setDestinations({
      't:a:vk': [{ address: SERVICE, protocol: 'tcp', port: 80 }, { address: DNS_A, protocol: 'tcp', port: 53 }],
      't:b:vk': [{ address: DNS_B, protocol: 'tcp', port: 53 }],
    });
    await ip.batch([SERVICE, DNS_A, DNS_B].map((address) => `addr add ${address}/32 dev lo`), netns);
    for (const [address, port] of [[network.gateway, RELAY_PORT], [network.gateway, 9999], [SERVICE, 80], [DNS_A, 53], [DNS_B, 53]] as const) await serve(netns, address, port, `${address}:${port}`);
    for (const [uid, name] of [[a1, 'a1'], [a2, 'a2'], [b1, 'b1']] as const) stopServing.set(uid, await serve(pods(uid), '0.0.0.0', 8080, name));
  });
  after(async () => {
    for (const server of servers) server.close();
    for (const broker of brokers) broker.close();
    for (const uid of [a1, a2, b1, old]) await network.detach(uid).catch(() => undefined);
    await network.remove();
    rmSync(home, { recursive: true, force: true });
  });

  it('a pod reaches its own cluster\'s pods, Service, name server and the relay; another cluster\'s, and the gateway\'s other ports, never answer', async () => {
    const [ipA1, ipA2, ipB1] = addresses;
    assert.equal(await connect(pods(a1), ipA2, 8080), 'CONNECTED');
    assert.equal(await connect(pods(a1), SERVICE, 80), 'CONNECTED');
    assert.equal(await connect(pods(a1), DNS_A, 53), 'CONNECTED');
    assert.equal(await connect(pods(a1), network.gateway, RELAY_PORT), 'CONNECTED');
    assert.equal(await connect(pods(b1), DNS_B, 53), 'CONNECTED');
    assert.equal(await connect(pods(a1), ipB1, 8080), 'TIMEOUT', 'another cluster\'s pod');
    assert.equal(await connect(pods(b1), ipA1, 8080), 'TIMEOUT', 'the other way round');
    assert.equal(await connect(pods(b1), SERVICE, 80), 'TIMEOUT', 'another cluster\'s ClusterIP');
    assert.equal(await connect(pods(a1), DNS_B, 53), 'TIMEOUT', 'another cluster\'s name server');
    assert.equal(await connect(pods(a1), network.gateway, 9999), 'TIMEOUT', 'the gateway\'s other ports');
    // What the site opens (probes, hooks, the proxy's backends) is answered: replies pass as established.
    assert.equal(await connect(netns, ipB1, 8080), 'CONNECTED');
    assert.ok((await dropsOf(a1, 'isolated')) >= 3, 'a1\'s attempts counted');
    // Another cluster's pod's MAC follows from its address: a1 skips ARP and sends unicast frames straight to b1's MAC.
    const before = await dropsOf(a1, 'isolated');
    await ip.batch([`neigh replace ${ipB1} lladdr ${podMacAddress([...podAddresses(options.cidr)][2] as number)} dev eth0 nud permanent`], pods(a1));
    assert.equal(await connect(pods(a1), ipB1, 8080), 'TIMEOUT', 'another cluster\'s pod, addressed by its MAC');
    await ip.batch([`neigh del ${ipB1} dev eth0`], pods(a1));
    assert.ok((await dropsOf(a1, 'isolated')) > before, 'unicast frames to another cluster\'s port counted');
    assert.ok((await dropsOf(b1, 'isolated')) >= 2, 'b1\'s attempts counted');
  });

  it('a pod that takes another\'s IP, ARP identity or MAC sends nothing from them: dropped before the bridge learns, counted per pod and logged', async () => {
    const [ipA1, ipA2] = addresses;
    assert.equal(await connect(netns, ipA2, 8080), 'CONNECTED');
    const a2Mac = podMacAddress([...podAddresses(options.cidr)][1] as number);
    assert.equal(neighbourOf(ipA2), a2Mac);
    await ip.batch([`addr add ${ipA2}/32 dev eth0`], pods(a1));
    await runIn(pods(a1), busybox, ['arping', '-c', '3', '-w', '5', '-U', '-s', ipA2, '-I', 'eth0', network.gateway]);
    await runIn(pods(a1), busybox, ['ping', '-c', '3', '-W', '1', '-I', ipA2, network.gateway]);
    await ip.batch([`addr del ${ipA2}/32 dev eth0`, `link set eth0 address ${a2Mac}`], pods(a1));
    await runIn(pods(a1), busybox, ['ping', '-c', '3', '-W', '1', network.gateway]);
    await ip.batch([`link set eth0 address ${podMacAddress([...podAddresses(options.cidr)][0] as number)}`], pods(a1));
    assert.equal(neighbourOf(ipA2), a2Mac, 'the gateway still has a2 at a2\'s MAC');
    assert.ok((await dropsOf(a1, 'arp_spoofed')) >= 3, `forged ARP counted: ${await dropsOf(a1, 'arp_spoofed')}`);
    assert.ok((await dropsOf(a1, 'ip_spoofed')) >= 3, `a taken IP counted: ${await dropsOf(a1, 'ip_spoofed')}`);
    assert.ok((await dropsOf(a1, 'mac_spoofed')) >= 3, `a taken MAC counted: ${await dropsOf(a1, 'mac_spoofed')}`);
    // The agent's resync logs what grew since the filter started: a warning naming the pod for each forgery.
    await network.filter.logDrops('edge');
    for (const reason of ['arp_spoofed', 'ip_spoofed', 'mac_spoofed']) {
      const line = logged.find((entry) => entry['reason'] === reason && entry['pod'] === 'a1');
      assert.equal(line?.['msg'], 'site network dropped packets with forged addresses', `${reason} logged: ${JSON.stringify(line)}`);
      assert.equal(line?.['level'], 40, 'a warning');
      assert.equal(line?.['ip'], ipA1);
    }
    const logLines = logged.length;
    await network.filter.logDrops('edge');
    assert.equal(logged.length, logLines, 'nothing grew, nothing logged');
    assert.equal(await connect(pods(a1), ipA2, 8080), 'CONNECTED', 'a1 with its own addresses back works again');
    // Had the bridge learnt a2's MAC on a1's port, the gateway's frames to a2 would go to a1.
    assert.equal(await connect(netns, ipA2, 8080), 'CONNECTED', 'a2 untouched');
  });

  it('the filter outlives its agent: the next one replaces what it finds, keeps the counts and forgets pods whose port is gone', async () => {
    const [ipA1, , ipB1] = addresses;
    const counted = await dropsOf(a1, 'arp_spoofed');
    // Someone opens the site's filter while no agent runs: rules flushed, policies accept, a chain of their own.
    nftIn('flush', 'table', 'bridge', 'edgeplane');
    for (const hook of ['prerouting', 'forward']) nftIn('add', 'chain', 'bridge', 'edgeplane', hook, `{ type filter hook ${hook} priority ${hook === 'forward' ? 0 : -200}; policy accept; }`);
    nftIn('add', 'chain', 'bridge', 'edgeplane', 'intruder', '{ type filter hook forward priority -300; policy accept; }');
    assert.equal(await connect(pods(a1), ipB1, 8080), 'CONNECTED', 'the opened filter lets a1 through (the test can tell)');
    // b1 goes while no agent runs (the kernel removes a namespace, and its veth, once nothing holds it).
    stopServing.get(b1)?.();
    execFileSync(ip.path, ['netns', 'delete', pods(b1)]);
    const veth = hostVethName(pods(b1));
    for (let i = 0; i < 100 && (await ip.run(['-n', netns, '-o', 'link', 'show'])).includes(veth); i++) await delay(50);
    network = new SiteNetwork(options);
    await network.ensure();
    const ruleset = nftIn('list', 'ruleset');
    assert.ok(!ruleset.includes('intruder'), 'what another left in the table is gone');
    assert.ok(!ruleset.includes(hostVethName(pods(b1))), 'b1, whose port is gone, is forgotten');
    assert.equal(network.filter.holds(a1, ipA1), true);
    assert.ok((await dropsOf(a1, 'arp_spoofed')) >= counted, 'counts kept');
    await serve(pods(a2), '0.0.0.0', 8081, 'a2');
    assert.equal(await connect(pods(a1), addresses[1], 8081), 'CONNECTED');
    await runIn(pods(a1), busybox, ['arping', '-c', '3', '-w', '2', '-U', '-I', 'eth0', network.gateway]);
    assert.equal(await connect(pods(a1), ipB1, 8080), 'TIMEOUT');
  });

  it('a pod an older agent attached (a random MAC, unknown to the filter) sends nothing until adopted, then only from the MAC its address gives', async () => {
    const [, ipA2, , ipOld] = addresses;
    const podNetns = pods(old);
    const veth = hostVethName(podNetns);
    await ip.run(['netns', 'add', podNetns]);
    await ip.batch([`link add ${veth} type veth peer name eth0 netns ${podNetns}`, `link set ${veth} master site0`, `link set ${veth} up`], netns);
    await ip.batch(['link set lo up', `addr add ${ipOld}/28 dev eth0`, 'link set eth0 up', `route add default via ${network.gateway} dev eth0`], podNetns);
    assert.equal(await connect(podNetns, ipA2, 8080), 'TIMEOUT', 'a port no pod was admitted on');
    await network.adopt(old, ipOld, owner('a', 'old'));
    const mac = /link\/ether (\S+)/.exec(await ip.run(['-n', podNetns, 'link', 'show', 'eth0']))?.[1];
    assert.equal(mac, podMacAddress([...podAddresses(options.cidr)][3] as number));
    assert.equal(await connect(podNetns, ipA2, 8080), 'CONNECTED');
    await network.detach(old);
    assert.equal(network.filter.holds(old, ipOld), false);
  });
});
