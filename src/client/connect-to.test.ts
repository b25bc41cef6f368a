import assert from 'node:assert/strict';
import { Agent, createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createPrivateCa, type PrivateCa } from '../secrets/testing/private-ca.js';
import { parseConnectTo } from './connect-to.js';
import { httpsRequest } from './https-client.js';
import { TcpRelay } from './testing/tcp-relay.js';

interface Seen {
  readonly servername: string | false;
  readonly host: string | undefined;
}

/** An HTTPS server on 127.0.0.1 with a certificate for `names` only, recording SNI and Host. */
async function serverFor(ca: PrivateCa, names: readonly string[], seen: Seen[]): Promise<{ server: Server; port: number }> {
  const pair = await ca.issue({ commonName: names[0] ?? 'server', names, usage: 'server' });
  const server = createServer({ cert: pair.certificate, key: pair.key }, (req, res) => {
    seen.push({ servername: (req.socket as TLSSocket & { servername: string | false }).servername, host: req.headers.host });
    res.end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe('connect-to: dial a relay, check the URL host', () => {
  let ca: PrivateCa;
  const seen: Seen[] = [];
  let named: { server: Server; port: number };
  let relayOnly: { server: Server; port: number };
  let relay: TcpRelay;
  let relayToRelayOnly: TcpRelay;
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning);

  before(async () => {
    ca = await createPrivateCa('connect-to test CA');
    named = await serverFor(ca, ['cp.test', '10.77.0.1'], seen);
    relayOnly = await serverFor(ca, ['127.0.0.1', 'localhost'], seen);
    relay = await TcpRelay.start({ host: '127.0.0.1', port: named.port });
    relayToRelayOnly = await TcpRelay.start({ host: '127.0.0.1', port: relayOnly.port });
    process.on('warning', onWarning);
  });
  after(async () => {
    process.off('warning', onWarning);
    await relay.close();
    await relayToRelayOnly.close();
    for (const { server } of [named, relayOnly]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('connect-to sends a request for a host name through the relay, with SNI and Host of the URL', async () => {
    const before = relay.connections;
    seen.length = 0;
    const response = await httpsRequest('https://cp.test:6443/hello', ca.certificate, { connectTo: parseConnectTo(relay.address) });
    assert.equal(response.status, 200);
    assert.equal(response.body, 'hello');
    assert.equal(relay.connections, before + 1);
    assert.deepEqual(seen, [{ servername: 'cp.test', host: 'cp.test:6443' }]);
  });

  it('connect-to works for an IP address in the URL: no SNI, the certificate checked for that IP, no warning', async () => {
    const before = relay.connections;
    seen.length = 0;
    const response = await httpsRequest('https://10.77.0.1:6443/hello', ca.certificate, { connectTo: parseConnectTo(relay.address) });
    assert.equal(response.status, 200);
    assert.equal(relay.connections, before + 1);
    assert.deepEqual(seen, [{ servername: false, host: '10.77.0.1:6443' }]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings.map((w) => w.message), []);
  });

  it('connect-to refuses a certificate that does not name the URL host', async () => {
    seen.length = 0;
    const connectTo = parseConnectTo(relay.address);
    await assert.rejects(httpsRequest('https://other.test:6443/hello', ca.certificate, { connectTo }), (error: NodeJS.ErrnoException) => error.code === 'ERR_TLS_CERT_ALTNAME_INVALID' && /other\.test/.test(error.message));
    await assert.rejects(httpsRequest('https://10.77.0.2:6443/hello', ca.certificate, { connectTo }), (error: NodeJS.ErrnoException) => error.code === 'ERR_TLS_CERT_ALTNAME_INVALID' && /10\.77\.0\.2/.test(error.message));
    assert.deepEqual(seen, [], 'no request reached the server');
  });

  it('connect-to checks the URL host, not the relay address the certificate names', async () => {
    const connectTo = parseConnectTo(relayToRelayOnly.address);
    await assert.rejects(httpsRequest('https://cp.test:6443/hello', ca.certificate, { connectTo }), (error: NodeJS.ErrnoException) => error.code === 'ERR_TLS_CERT_ALTNAME_INVALID');
    // Without SNI (an IP in the URL) node would check the dialed address: the URL's must be checked.
    await assert.rejects(httpsRequest('https://10.77.0.1:6443/hello', ca.certificate, { connectTo }), (error: NodeJS.ErrnoException) => error.code === 'ERR_TLS_CERT_ALTNAME_INVALID' && /10\.77\.0\.1/.test(error.message));
    // The same certificate is fine when the URL names what it certifies.
    assert.equal((await httpsRequest('https://localhost:1/hello', ca.certificate, { connectTo })).status, 200);
  });

  it('connect-to keeps connections of a keep-alive agent through the relay', async () => {
    const agent = new Agent({ keepAlive: true });
    const before = relay.connections;
    try {
      const connectTo = parseConnectTo(relay.address);
      for (let i = 0; i < 3; i++) assert.equal((await httpsRequest('https://cp.test:6443/hello', ca.certificate, { connectTo, agent })).status, 200);
    } finally {
      agent.destroy();
    }
    assert.equal(relay.connections, before + 1);
  });

  it('connect-to parses host:port and [ipv6]:port, and names what is wrong', () => {
    assert.deepEqual(parseConnectTo('10.88.0.1:6443'), { host: '10.88.0.1', port: 6443 });
    assert.deepEqual(parseConnectTo('relay.site:443'), { host: 'relay.site', port: 443 });
    assert.deepEqual(parseConnectTo('[fd00::1]:6443'), { host: 'fd00::1', port: 6443 });
    assert.throws(() => parseConnectTo('10.88.0.1'), /"10\.88\.0\.1" is not host:port/);
    assert.throws(() => parseConnectTo(':6443'), /is not host:port/);
    assert.throws(() => parseConnectTo('h:0'), /port 0 is not between 1 and 65535/);
    assert.throws(() => parseConnectTo('h:70000'), /port 70000 is not between 1 and 65535/);
    assert.throws(() => parseConnectTo('[relay]:1'), /"relay" is not an IPv6 address/);
  });
});
