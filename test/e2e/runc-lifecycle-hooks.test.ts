import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

const SITE = 'ce-h';
/** Serves on :8080, noting each request (the preStop hook's) and SIGTERM in /data/hooks. */
const SERVER =
  "const fs=require('fs'),note=(w)=>fs.appendFileSync('/data/hooks',w+'\\n');require('http').createServer((q,s)=>{note('request '+q.url+' '+q.headers['user-agent']);s.end('ok')}).listen(8080);process.on('SIGTERM',()=>{note('sigterm');process.exit(0)})";

interface Pod extends KubeObject {
  status?: { containerStatuses?: Array<{ name: string; restartCount: number; state: Record<string, unknown> }> };
}

/** The Deployment and the claim its hooks write their notes into (the claim's folder outlives the pod). */
function deployment(name: string, command: readonly string[], lifecycle: string, grace: number): string {
  return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: hooks-${name}, annotations: {svc.io/sites: "system/${SITE}"}}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: "system/${SITE}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: ${grace}
      volumes: [{name: data, persistentVolumeClaim: {claimName: hooks-${name}}}]
      containers:
      - name: c
        image: host
        command: ${JSON.stringify(command)}
        volumeMounts: [{name: data, mountPath: /data}]
        lifecycle: ${lifecycle}
`;
}

describe('lifecycle hooks of pods on a runc site', () => {
  let env: RuncSiteEnv;
  before(async () => {
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }]);
  });
  after(async () => {
    if (env === undefined) return;
    await env.ok(['delete', 'deployment', '--all']).catch(() => '');
    await env.ok(['delete', 'pvc', '--all']).catch(() => '');
    await waitFor('pods gone', () => Promise.resolve(env.runtime(SITE).size === 0 ? true : undefined), { timeoutMs: 30_000 }).catch(() => undefined);
    const left = podLeftovers(env, SITE);
    await env.close();
    assert.deepEqual(left, []);
  });

  const podOf = async (app: string): Promise<Pod | undefined> => (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items[0];
  /** The file the pod's hooks and server write, in the claim's folder on the site (it outlives the pod). */
  const volumes = new Map<string, string>();
  const notes = async (app: string): Promise<string> => {
    if (!volumes.has(app)) {
      const claim = await env.read<{ spec?: { volumeName?: string } }>(`api/v1/namespaces/default/persistentvolumeclaims/hooks-${app}`);
      if (claim?.spec?.volumeName === undefined) return '';
      volumes.set(app, claim.spec.volumeName);
    }
    const file = join(env.home(SITE), 'runc', SITE, 'persistent-volumes', volumes.get(app) ?? '', 'hooks');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };

  it('runs an exec postStart hook right after the start, and on deletion an httpGet preStop hook before SIGTERM', async () => {
    await env.ok(['apply', '-f', '-'], deployment('served', ['node', '-e', SERVER], '{postStart: {exec: {command: ["sh", "-c", "echo post-start >> /data/hooks"]}}, preStop: {httpGet: {path: /stop, port: 8080}}}', 10));
    await waitFor('served running', async () => ((await podOf('served'))?.status?.containerStatuses?.find((c) => c.name === 'c')?.state['running'] !== undefined ? true : undefined), { timeoutMs: 60_000 });
    assert.equal(await notes('served'), 'post-start\n', 'the postStart hook ran once the container started');
    // The server listens a moment after its start: the hook is not retried, so wait before deleting.
    await waitFor('the server listens', async () => ((await env.kubectl(['exec', (await podOf('served'))?.metadata.name ?? '', '-c', 'c', '--', 'node', '-e', "require('http').get('http://127.0.0.1:8080/ping',(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"])).status === 0 ? true : undefined));
    await env.ok(['delete', 'deployment', 'served', '--wait=false']);
    const written = await waitFor('the pod stopped', async () => ((await notes('served')).includes('sigterm') ? notes('served') : undefined), { timeoutMs: 30_000, describe: () => notes('served') });
    assert.equal(written, 'post-start\nrequest /ping undefined\nrequest /stop Go-http-client/1.1\nsigterm\n', 'the preStop GET came before SIGTERM');
  });

  it('a failing postStart hook (httpGet to a closed port) is a FailedPostStartHook Event and the container is killed and restarted', async () => {
    await env.ok(['apply', '-f', '-'], deployment('unhooked', ['sleep', '3600'], '{postStart: {httpGet: {path: /started, port: 9}}}', 1));
    const restarted = await waitFor('unhooked restarted', async () => {
      const status = (await podOf('unhooked'))?.status?.containerStatuses?.find((c) => c.name === 'c');
      return (status?.restartCount ?? 0) >= 1 ? status : undefined;
    }, { timeoutMs: 60_000, describe: async () => JSON.stringify((await podOf('unhooked'))?.status?.containerStatuses) });
    assert.ok(restarted !== undefined);
    const name = (await podOf('unhooked'))?.metadata.name ?? '';
    const items = (await env.read<{ items: Array<{ reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }> }>('api/v1/namespaces/default/events'))?.items ?? [];
    const failed = items.find((e) => e.involvedObject?.name === name && e.reason === 'FailedPostStartHook');
    assert.equal(failed?.type, 'Warning');
    assert.match(failed?.message ?? '', /^Http lifecycle hook \(\/started\) for Container "c" in Pod "unhooked-[a-z0-9-]+_default\([0-9a-f-]+\)" failed - error: Get http:\/\/10\.244\.\d+\.\d+:9\/started: dial tcp 10\.244\.\d+\.\d+:9: connect: connection refused, message: ""$/);
    assert.ok(items.some((e) => e.involvedObject?.name === name && e.reason === 'Killing' && e.message === 'FailedPostStartHook'));
  });
});
