import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { useServerWithCluster } from './support/server-with-cluster.js';

const CREATES = 1000;
const VALUE_BYTES = 64 * 1024;

/**
 * Sequential large creates over one keep-alive TLS connection each get their answer (issue 20,
 * defect 3: node's HTTP parser, consuming the TLS handle natively, failed with HPE_PAUSED when a
 * request arrived while the previous 64 KiB answer was still draining, and the connection was
 * closed without a response).
 */
describe('the virtual cluster API over one keep-alive connection', () => {
  const fixture = useServerWithCluster('keep-alive');

  it(`answers ${CREATES} sequential creates of 64 KiB ConfigMaps on one connection`, { timeout: 240_000 }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: fixture.cluster.ca, cert: fixture.cluster.cert, key: fixture.cluster.key });
    const url = new URL(`${fixture.cluster.server}/api/v1/namespaces/default/configmaps`);
    const sockets = new Set<Socket>();
    const statuses = new Map<string, number>();
    try {
      for (let i = 0; i < CREATES; i += 1) {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { value: 'x'.repeat(VALUE_BYTES) } });
        const outcome = await new Promise<string>((resolve) => {
          const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
            sockets.add(response.socket);
            response.resume();
            response.on('end', () => resolve(String(response.statusCode)));
          });
          req.on('error', (error) => resolve(`no answer (${error.message})`));
          req.end(body);
        });
        statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
      }
    } finally {
      agent.destroy();
    }
    assert.deepEqual(Object.fromEntries(statuses), { '201': CREATES });
    assert.equal(sockets.size, 1, 'every create went over the one keep-alive connection');
  });
});
