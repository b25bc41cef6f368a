import type { AddressInfo, Socket } from 'node:net';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool, toolPath } from '../../../../testing/tools.js';
import { createLogger } from '../../../../observability/logger.js';
import { IpCommand } from '../../../host/index.js';
import { RELAY_PORT } from './control-plane-relay.js';
import { parseCidr, podAddresses } from './ipv4-cidr.js';
import { NetnsSocketBroker } from './netns-broker.js';
import { siteNamespaceName } from './pod-interface.js';
import { SiteNetwork } from './site-network.js';

const ip = new IpCommand(toolPath('ip'));
const home = mkdtempSync(join(tmpdir(), `site-network-test-${randomBytes(4).toString('hex')}`));
const network = new SiteNetwork({
  ip,
  nft: tool('nft'),
  netns: siteNamespaceName(home, 'edge-1'),
  cidr: parseCidr('10.244.250.0/29'),
  filterStateFile: join(home, 'filter.json'),
  logger: createLogger({ level: 'silent' }),
});
const brokers: NetnsSocketBroker[] = [];
const owner = { cluster: { tenant: 't', namespace: 'ns', name: 'vk' }, namespace: 'ns', name: 'pod' };

after(async () => {
  for (const broker of brokers) broker.close();
  await network.remove();
  rmSync(home, { recursive: true, force: true });
});

test('two pods of a site (one virtual cluster) reach each other by IP through the site bridge, and the gateway answers', async () => {
  await network.ensure();
  await network.ensure(); // a second start finds what the first made
  const [first, second] = [...podAddresses(network.cidr)] as [number, number];
  const [uidA, uidB] = [randomUUID(), randomUUID()];
  const a = await network.attach(uidA, first, owner);
  const b = await network.attach(uidB, second, owner);
  assert.equal(a.address, '10.244.250.2');
  assert.equal(b.address, '10.244.250.3');

  const inB = new NetnsSocketBroker(ip.path, b.netns);
  const inA = new NetnsSocketBroker(ip.path, a.netns);
  const atGateway = new NetnsSocketBroker(ip.path, network.netns);
  brokers.push(inA, inB, atGateway);
  const server = await inB.listen('0.0.0.0', 8080);
  server.on('connection', (socket) => socket.end(`hello ${socket.remoteAddress}`));
  const reply = async (socket: Socket): Promise<string> => {
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).resume();
    await new Promise((resolve) => socket.on('end', resolve));
    return text;
  };
  assert.equal(await reply(await inA.dial(b.address, 8080)), `hello ${a.address}`);
  assert.equal(await reply(await atGateway.dial(b.address, 8080)), `hello ${network.gateway}`);
  server.close();

  const agent = await atGateway.listen(network.gateway, RELAY_PORT);
  agent.on('connection', (socket) => socket.end('agent'));
  const port = (agent.address() as AddressInfo).port;
  assert.equal(await reply(await inA.dial(network.gateway, port)), 'agent', 'the relay\'s port on the gateway');
  agent.close();

  for (const broker of [inA, inB]) broker.close();
  await network.detach(randomUUID()); // a pod it never attached: nothing to do
  await network.detach(uidA);
  await network.detach(uidB);
  const left = await ip.namespaces();
  assert.ok(!left.has(a.netns) && !left.has(b.netns));
  assert.ok(left.has(network.netns));
});
