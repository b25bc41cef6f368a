import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FirewallPod, SiteFirewallSpec } from './firewall-model.js';
import { siteFirewallTables, type NftTable } from './firewall-ruleset.js';
import { dropCounts, existingObjects, firewallScript } from './firewall-script.js';

const pod = (veth: string, ip: string, cluster: string): FirewallPod => ({
  uid: `uid-${veth}`,
  veth,
  mac: `0a:58:0a:f4:00:${ip.split('.')[3]?.padStart(2, '0') ?? '00'}`,
  ip,
  cluster,
  namespace: 'default',
  name: `pod-${veth}`,
});

const A1 = pod('veth00000000a1', '10.244.0.11', 't1:default:vk1');
const A2 = pod('veth00000000a2', '10.244.0.12', 't1:default:vk1');
const B1 = pod('veth00000000b1', '10.244.0.21', 't2:team:vk2');

const spec = (pods: readonly FirewallPod[]): SiteFirewallSpec => ({
  bridge: 'site0',
  gateway: '10.244.0.1',
  relayPort: 8443,
  pods,
  destinations: {
    't1:default:vk1': [
      { address: '169.254.20.10', protocol: 'udp', port: 53 },
      { address: '10.96.0.5', protocol: 'tcp', port: 80 },
    ],
    't2:team:vk2': [{ address: '169.254.20.11', protocol: 'udp', port: 53 }],
  },
});

const chain = (table: NftTable, name: string): readonly string[] => {
  const found = table.chains.find((c) => c.name === name);
  assert.ok(found !== undefined, `chain ${name} in ${table.family}: ${table.chains.map((c) => c.name).join(', ')}`);
  return found.rules;
};

describe('the site packet filter (pure)', () => {
  it('each pod\'s port may send only its own MAC, ARP sender and IPv4 source; a port of no pod sends nothing', () => {
    const [bridge] = siteFirewallTables(spec([A1, B1]));
    const prerouting = bridge.chains.find((c) => c.name === 'prerouting');
    assert.equal(prerouting?.base, 'type filter hook prerouting priority -200; policy drop;');
    assert.deepEqual(prerouting?.rules, [
      'iifname vmap { "veth00000000a1" : jump spoof_veth00000000a1, "veth00000000b1" : jump spoof_veth00000000b1 }',
      'counter name "unknown_port" drop',
    ]);
    assert.deepEqual(chain(bridge, 'spoof_veth00000000a1'), [
      'ether saddr != 0a:58:0a:f4:00:11 counter name "veth00000000a1_mac_spoofed" drop',
      'ether type arp arp htype != 1 counter name "veth00000000a1_arp_spoofed" drop',
      'ether type arp arp ptype != ip counter name "veth00000000a1_arp_spoofed" drop',
      'ether type arp arp hlen != 6 counter name "veth00000000a1_arp_spoofed" drop',
      'ether type arp arp plen != 4 counter name "veth00000000a1_arp_spoofed" drop',
      'ether type arp arp saddr ether != 0a:58:0a:f4:00:11 counter name "veth00000000a1_arp_spoofed" drop',
      'ether type arp arp saddr ip != 10.244.0.11 counter name "veth00000000a1_arp_spoofed" drop',
      'ether type arp accept',
      'ether type ip ip saddr != 10.244.0.11 counter name "veth00000000a1_ip_spoofed" drop',
      'ether type ip accept',
      'ether type ip6 counter name "veth00000000a1_ipv6" drop',
      'counter name "veth00000000a1_other_protocol" drop',
    ]);
  });

  it('a pod\'s frames leave the bridge only through ports of its own virtual cluster', () => {
    const [bridge] = siteFirewallTables(spec([A1, A2, B1]));
    const forward = bridge.chains.find((c) => c.name === 'forward');
    assert.equal(forward?.base, 'type filter hook forward priority 0; policy drop;');
    const vk1 = bridge.sets.find((s) => s.elements.includes('"veth00000000a1"'));
    const vk2 = bridge.sets.find((s) => s.elements.includes('"veth00000000b1"'));
    assert.deepEqual(vk1?.elements, ['"veth00000000a1"', '"veth00000000a2"']);
    assert.deepEqual(vk2?.elements, ['"veth00000000b1"']);
    assert.notEqual(vk1?.name, vk2?.name);
    assert.deepEqual(chain(bridge, 'peers_veth00000000a2'), [`oifname @${vk1?.name ?? ''} accept`, 'meta pkttype { broadcast, multicast } drop', 'counter name "veth00000000a2_isolated" drop']);
    assert.deepEqual(chain(bridge, 'peers_veth00000000b1'), [`oifname @${vk2?.name ?? ''} accept`, 'meta pkttype { broadcast, multicast } drop', 'counter name "veth00000000b1_isolated" drop']);
  });

  it('on the gateway a pod may open the relay and its own cluster\'s name server and Services; replies to the site pass', () => {
    const [, inet] = siteFirewallTables(spec([A1, B1]));
    assert.deepEqual(chain(inet, 'input'), [
      'iifname != "site0" accept',
      'ct state established,related accept',
      'ip saddr vmap { 10.244.0.11 : jump reach_veth00000000a1, 10.244.0.21 : jump reach_veth00000000b1 }',
      'counter name "unknown_source" drop',
    ]);
    const a1 = chain(inet, 'reach_veth00000000a1');
    const set = /@(services_\w+)/.exec(a1[0] ?? '')?.[1];
    assert.deepEqual(a1, [`ip daddr . meta l4proto . th dport @${set ?? ''} accept`, 'ip daddr 10.244.0.1 tcp dport 8443 accept', 'counter name "veth00000000a1_isolated" drop']);
    assert.deepEqual(inet.sets.find((s) => s.name === set)?.elements, ['10.96.0.5 . tcp . 80', '169.254.20.10 . udp . 53']);
    const b1 = chain(inet, 'reach_veth00000000b1');
    const other = /@(services_\w+)/.exec(b1[0] ?? '')?.[1];
    assert.notEqual(other, set);
    assert.deepEqual(inet.sets.find((s) => s.name === other)?.elements, ['169.254.20.11 . udp . 53']);
  });

  it('a second pod claiming a port or address already held gets no rules (it sends nothing); no pods, no maps', () => {
    const thief = { ...pod('veth00000000c1', '10.244.0.11', 't2:team:vk2'), uid: 'thief' };
    const [bridge, inet] = siteFirewallTables(spec([thief, A1]));
    assert.ok(bridge.chains.some((c) => c.name === 'spoof_veth00000000a1'));
    assert.ok(!bridge.chains.some((c) => c.name === 'spoof_veth00000000c1'));
    assert.ok(!chain(inet, 'input').some((rule) => rule.includes('veth00000000c1')));
    const [emptyBridge, emptyInet] = siteFirewallTables(spec([]));
    assert.deepEqual(chain(emptyBridge, 'prerouting'), ['counter name "unknown_port" drop']);
    assert.deepEqual(chain(emptyBridge, 'forward'), []);
    assert.deepEqual(emptyInet.sets, []);
  });

  it('the script keeps counters, refills sets and deletes what is no longer wanted after the flush, in one transaction', () => {
    const tables = siteFirewallTables(spec([A1]));
    const existing = existingObjects([
      { table: { family: 'bridge', name: 'edgeplane' } },
      { chain: { family: 'bridge', table: 'edgeplane', name: 'spoof_veth00000000b1' } },
      { chain: { family: 'bridge', table: 'edgeplane', name: 'prerouting' } },
      { counter: { family: 'bridge', table: 'edgeplane', name: 'veth00000000b1_arp_spoofed', packets: 3 } },
      { counter: { family: 'bridge', table: 'edgeplane', name: 'veth00000000a1_arp_spoofed', packets: 3 } },
      { set: { family: 'inet', table: 'edgeplane', name: 'services_gone' } },
      { chain: { family: 'inet', table: 'other', name: 'not_ours' } },
    ]);
    const lines = firewallScript(tables, existing).trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 4), ['add table bridge edgeplane', 'flush table bridge edgeplane', 'add table inet edgeplane', 'flush table inet edgeplane']);
    assert.ok(lines.includes('add counter bridge edgeplane veth00000000a1_arp_spoofed'));
    assert.ok(lines.includes('add chain bridge edgeplane prerouting { type filter hook prerouting priority -200; policy drop; }'));
    assert.ok(lines.some((l) => /^add set inet edgeplane services_\w+ \{ type ipv4_addr \. inet_proto \. inet_service; \}$/.test(l)));
    assert.ok(lines.some((l) => /^flush set inet edgeplane services_\w+$/.test(l)));
    assert.deepEqual(lines.filter((l) => l.startsWith('delete ')), [
      'delete chain bridge edgeplane spoof_veth00000000b1',
      'delete counter bridge edgeplane veth00000000b1_arp_spoofed',
      'delete set inet edgeplane services_gone',
    ]);
    assert.ok(lines.findIndex((l) => l.startsWith('delete ')) > lines.findLastIndex((l) => l.startsWith('add rule ')), 'deletions come after every rule');
  });

  it('drop counts are summed per pod and reason over both tables; the site\'s own counters carry no pod', () => {
    const counts = dropCounts([
      { counter: { family: 'bridge', table: 'edgeplane', name: 'veth00000000a1_isolated', packets: 2 } },
      { counter: { family: 'inet', table: 'edgeplane', name: 'veth00000000a1_isolated', packets: 5 } },
      { counter: { family: 'bridge', table: 'edgeplane', name: 'veth00000000a1_arp_spoofed', packets: 30 } },
      { counter: { family: 'bridge', table: 'edgeplane', name: 'unknown_port', packets: 1 } },
      { counter: { family: 'bridge', table: 'other', name: 'veth00000000a1_arp_spoofed', packets: 99 } },
      { counter: { family: 'bridge', table: 'edgeplane', name: 'veth00000000a1_nonsense', packets: 99 } },
    ]);
    assert.deepEqual(counts, [
      { veth: 'veth00000000a1', reason: 'isolated', packets: 7 },
      { veth: 'veth00000000a1', reason: 'arp_spoofed', packets: 30 },
      { reason: 'unknown_port', packets: 1 },
    ]);
  });
});
