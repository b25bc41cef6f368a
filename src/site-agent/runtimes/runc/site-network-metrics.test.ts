import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import type { SiteFirewall } from './network/index.js';
import { registerSiteNetworkMetrics } from './site-network-metrics.js';

test('the drop counters are read at each scrape, labelled with the site and the pod, zeros left out', async () => {
  const pod = { uid: 'u1', veth: 'veth0123456789', mac: '0a:58:0a:f4:00:05', ip: '10.244.0.5', cluster: 'acme:team:vk2', namespace: 'team', name: 'attacker' };
  let arp = 30;
  const filter = { drops: () => Promise.resolve([{ pod, reason: 'arp_spoofed' as const, packets: arp }, { pod, reason: 'isolated' as const, packets: 0 }, { reason: 'unknown_port' as const, packets: 2 }]) };
  const registry = new Registry();
  registerSiteNetworkMetrics(registry, new Map([['edge-1', { network: { filter: filter as unknown as SiteFirewall } }]]));
  const page = await registry.metrics();
  assert.match(page, /^# TYPE edgeplane_site_network_dropped_packets_total counter$/m);
  assert.match(page, /^edgeplane_site_network_dropped_packets_total\{site="edge-1",cluster="acme:team:vk2",namespace="team",pod="attacker",reason="arp_spoofed"\} 30$/m);
  assert.match(page, /^edgeplane_site_network_dropped_packets_total\{site="edge-1",cluster="",namespace="",pod="",reason="unknown_port"\} 2$/m);
  assert.doesNotMatch(page, /reason="isolated"/);
  arp = 45;
  assert.match(await registry.metrics(), /reason="arp_spoofed"\} 45$/m, 'the kernel\'s count, not a sum of scrapes');
});
