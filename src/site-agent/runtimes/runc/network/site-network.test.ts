import type { AddressInfo, Socket } from 'node:net';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { toolPath } from '../../../../testing/tools.js';
import { IpCommand } from '../../../host/index.js';
import { parseCidr, podAddresses } from './ipv4-cidr.js';
import { NetnsSocketBroker } from './netns-broker.js';
import { SiteNetwork, siteNamespaceName } from './site-network.js';

const ip = new IpCommand(toolPath('ip'));
const home = `/tmp/site-network-test-${randomBytes(4).toString('hex')}`;
const network = new SiteNetwork(ip, siteNamespaceName(home, 'edge-1'), parseCidr('10.244.250.0/29'));
const brokers: NetnsSocketBroker[] = [];

after(async () => {
  for (const broker of brokers) broker.close();
  await network.remove();
});

test('two pods of a site reach each other by IP through the site bridge, and the gateway answers', async () => {
  await network.ensure();
  await network.ensure(); // a second start finds what the first made
  const [first, second] = [...podAddresses(network.cidr)] as [number, number];
  const [uidA, uidB] = [randomUUID(), randomUUID()];
  const a = await network.attach(uidA, first);
  const b = await network.attach(uidB, second);
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

  const agent = await atGateway.listen(network.gateway, 0);
  agent.on('connection', (socket) => socket.end('agent'));
  const port = (agent.address() as AddressInfo).port;
  assert.equal(await reply(await inA.dial(network.gateway, port)), 'agent');
  agent.close();

  for (const broker of [inA, inB]) broker.close();
  await network.detach(randomUUID()); // a pod it never attached: nothing to do
  await network.detach(uidA);
  await network.detach(uidB);
  const left = await ip.namespaces();
  assert.ok(!left.has(a.netns) && !left.has(b.netns));
  assert.ok(left.has(network.netns));
});
