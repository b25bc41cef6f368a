import { after, before, describe, it } from 'node:test';
import { crashRound } from '../testing/crash-harness.js';
import { EtcdTestServer } from '../testing/etcd-server.js';
import { openEtcdStore } from './index.js';

describe('etcd crash safety', () => {
  let server: EtcdTestServer;
  before(async () => {
    server = await EtcdTestServer.create();
  });
  after(() => server?.stop());

  it('etcd killed with SIGKILL 20 times under acknowledged writes loses none of them', async () => {
    let revision = 0;
    for (let round = 0; round < 20; round++) {
      // The etcd server holds the data: it is the process that crashes.
      const result = await crashRound({ backend: 'etcd', endpoints: [server.endpoint] }, `/crash/r${round}/`, 2000 + round, revision, {
        crash: () => server.kill(),
        reopen: async () => {
          await server.start();
          return openEtcdStore({ endpoints: [server.endpoint] });
        },
      });
      revision = result.revision;
    }
  });
});
