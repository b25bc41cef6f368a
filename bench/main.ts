/**
 * `npm run bench -- <area>`: benchmarks print their figures next to a baseline measured in
 * the same run on the same machine (raw SQLite, raw etcd, bare node:http, openssl speed).
 */
import { benchConfig } from './config.js';
import { benchIdentity } from './identity.js';
import { benchPlacement } from './placement.js';
import { benchProxy } from './proxy.js';
import { benchRuntime } from './runtime.js';
import { benchSidecarStart } from './sidecar-start.js';
import { benchStore } from './store.js';
import { benchStreams } from './streams.js';
import { benchUnseal } from './unseal.js';
import { benchVk8s } from './vk8s.js';

const areas: Record<string, { description: string; run: (args: string[]) => Promise<void> }> = {
  config: { description: 'configuration API: create, get and list rates on SQLite vs the store port in the same run', run: benchConfig },
  identity: { description: 'identity service and sidecar: CSR-to-certificate issuance rate over HTTPS and sidecar start → READY p50/p99 vs openssl speed ecdsap256 in the same run', run: benchIdentity },
  placement: { description: 'multi-site placement: one Deployment rolled out to 1,000 and 10,000 simulated sites (time, peak RSS, API p99)', run: benchPlacement },
  proxy: { description: 'Service proxy of a runc site (HAProxy): 1 GiB TCP/HTTP, keep-alive request rate, gRPC calls/s vs the pod IP in the same run, and change → traffic p50/p99', run: benchProxy },
  runtime: { description: 'runc site: pod create → Running/Ready one at a time and 50 at once vs raw runc, sidecar RSS vs bare node:http, agent CPU with 200 idle pods', run: benchRuntime },
  'sidecar-start': { description: 'one sidecar process start → READY: wall time, CPU seconds and RSS of the lean entry point and the full CLI vs bare node:http in the same run', run: benchSidecarStart },
  store: { description: 'store port: writes/s, reads/s, watch latency per backend vs raw better-sqlite3 and etcd3', run: benchStore },
  streams: { description: 'pod streams through the site tunnel: kubectl port-forward 1 GiB and 32 connections, exec and logs -f latency vs the pod IP, runc exec and tail -F in the same run', run: benchStreams },
  unseal: { description: 'sidecar POST /secret/unseal: cache miss (control plane, RSA-3072) and hit, p50/p99 and rate vs openssl speed rsa3072 in the same run', run: benchUnseal },
  vk8s: { description: 'virtual Kubernetes API: get, list, create rates and watch fan-out latency vs bare node:https in the same run', run: benchVk8s },
};

const [area, ...rest] = process.argv.slice(2);
if (area === undefined || area === '--help' || area === '-h' || !(area in areas)) {
  console.log('Usage: npm run bench -- <area> [options]\n\nAreas:');
  for (const [name, { description }] of Object.entries(areas)) console.log(`  ${name.padEnd(10)} ${description}`);
  process.exit(area === undefined || area === '--help' || area === '-h' ? 0 : 2);
}
await areas[area]?.run(rest);
