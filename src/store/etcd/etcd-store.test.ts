import { describeStoreConformance } from '../testing/conformance.js';
import { EtcdTestServer } from '../testing/etcd-server.js';
import { openEtcdStore } from './index.js';

let server: EtcdTestServer | undefined;

describeStoreConformance('etcd', {
  setUp: async () => {
    server = await EtcdTestServer.create();
  },
  open: () => {
    if (server === undefined) return Promise.reject(new Error('etcd test server did not start'));
    return Promise.resolve(openEtcdStore({ endpoints: [server.endpoint] }));
  },
  tearDown: async () => {
    await server?.stop();
  },
});
