import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../src/apimachinery/object.js';
import type { PodStreams, PodStreamTarget } from '../../src/site-api/pod-streams.js';
import { busyboxImageSpec, writeOciLayout } from '../../src/testing/oci-image-builder.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

const SITE = 'ce-u';
const IMAGE = 'busybox:users';
const EDGEPLANE = fileURLToPath(new URL('../../../bin/edgeplane.js', import.meta.url));
const IDENTITY = '/svc/secrets/identity';
/** What each workload container runs: reads its key, writes /tmp (an imported image's), then stays. */
const PROBE = `cat ${IDENTITY}/client.key >/dev/null 2>&1 && echo key-read; echo x > /tmp/mine && echo tmp-written; exec sleep 3600`;

interface Pod extends KubeObject {
  status?: { containerStatuses?: Array<{ name: string; state: Record<string, unknown> }> };
}

/** A Deployment of one pod on the imported busybox: `users` maps each container to its runAsUser; `podSecurity` is the pod's securityContext (flow YAML). */
function deployment(name: string, users: Record<string, number | undefined>, podSecurity = '{}'): string {
  const containers = Object.entries(users)
    .map(([c, uid]) => `      - {name: ${c}, image: "${IMAGE}", command: ["sh", "-c", ${JSON.stringify(PROBE)}]${uid === undefined ? '' : `, securityContext: {runAsUser: ${uid}}`}}`)
    .join('\n');
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: "system/${SITE}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      securityContext: ${podSecurity}
      containers:
${containers}
`;
}

describe("non-root workloads on a runc site read their identity; an imported image's / is theirs to walk", () => {
  let env: RuncSiteEnv;
  let streams: PodStreams;

  before(async () => {
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }]);
    streams = env.runtime(SITE).streams as PodStreams;
    const layout = join(env.dir, 'busybox-layout');
    writeOciLayout(layout, busyboxImageSpec());
    execFileSync(process.execPath, [EDGEPLANE, 'image', 'import', layout, '--name', IMAGE, '--home', env.home(SITE)]);
  });
  after(async () => {
    if (env === undefined) return;
    await env.ok(['delete', 'deployment', 'as-user', 'fs-group', 'mixed']).catch(() => '');
    await waitFor('pods gone', () => Promise.resolve(env.runtime(SITE).size === 0 ? true : undefined), { timeoutMs: 30_000 }).catch(() => undefined);
    const left = podLeftovers(env, SITE);
    await env.close();
    assert.deepEqual(left, []);
  });

  /** The one pod of Deployment `app` once every container in `containers` runs. */
  const running = (app: string, containers: readonly string[]): Promise<Pod> =>
    waitFor(`${app} running`, async () => {
      const pod = (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items[0];
      const statuses = pod?.status?.containerStatuses ?? [];
      return containers.every((c) => statuses.some((s) => s.name === c && s.state['running'] !== undefined)) ? pod : undefined;
    }, {
      timeoutMs: 60_000,
      describe: async () => {
        const pod = (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items[0];
        const sidecarLog = await env.kubectl(['logs', pod?.metadata.name ?? '', '-c', 'edgeplane-sidecar']);
        return `${JSON.stringify(pod?.status?.containerStatuses)}\nsidecar log: ${sidecarLog.stdout.slice(-2000)}`;
      },
    });

  const logOf = async (pod: Pod, container: string): Promise<string> => env.ok(['logs', pod.metadata.name ?? '', '-c', container]);

  /** Runs `command` in a container of the pod, as that container's user. */
  const exec = async (pod: Pod, container: string, command: string[]): Promise<{ code: number; output: string }> => {
    const key = [...env.runtime(SITE).keys()].find((k) => k.endsWith(`/${pod.metadata.name ?? ''}`)) ?? '';
    const [tenant, namespace, name] = key.split('/') as [string, string, string];
    const target: PodStreamTarget = { cluster: { tenant, namespace, name }, name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '', site: SITE, container };
    const out = new PassThrough();
    let output = '';
    out.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await streams.exec(target, { command, stdin: false, stdout: true, stderr: true, tty: false }, { stdout: out, stderr: out, signal: new AbortController().signal });
    return { code, output };
  };

  /** `uid:gid mode` of each identity file, as the host sees the pod's volume. */
  const owners = (pod: Pod): Record<string, string> => {
    const dir = join(env.home(SITE), 'runc', SITE, 'pods', pod.metadata.uid ?? '', 'volumes', 'kubernetes.io~empty-dir', 'edgeplane-identity');
    return Object.fromEntries(['client.key', 'server.key', 'client.crt', 'server_ca.crt'].map((f) => {
      const s = statSync(join(dir, f));
      return [f, `${s.uid}:${s.gid} ${(s.mode & 0o777).toString(8)}`];
    }));
  };

  it("a pod whose containers all run as user 1000 (the pod's runAsUser, on an imported image) reads its key and writes /tmp; the sidecar stays root with CAP_CHOWN alone", async () => {
    await env.ok(['apply', '-f', '-'], deployment('as-user', { a: undefined, b: undefined }, '{runAsUser: 1000, runAsNonRoot: true}'));
    const pod = await running('as-user', ['a', 'b', 'edgeplane-sidecar']);
    for (const c of ['a', 'b']) {
      const log = await waitFor(`${c}'s lines`, async () => ((await logOf(pod, c)).includes('tmp-written') ? logOf(pod, c) : undefined));
      assert.equal(log, 'key-read\ntmp-written\n', `container ${c}`);
    }
    assert.deepEqual(owners(pod), { 'client.key': '1000:0 640', 'server.key': '1000:0 640', 'client.crt': '1000:0 644', 'server_ca.crt': '1000:0 644' });
    const whoami = await exec(pod, 'a', ['id']);
    assert.match(whoami.output, /^uid=1000 gid=65534/);
    const sidecarConfig = JSON.parse(readFileSync(join(env.home(SITE), 'runc', SITE, 'pods', pod.metadata.uid ?? '', 'containers', 'edgeplane-sidecar', '0', 'bundle', 'config.json'), 'utf8')) as {
      process: { user: { uid: number; gid: number; additionalGids?: number[] }; capabilities: { bounding: string[]; effective: string[] }; noNewPrivileges: boolean };
    };
    assert.deepEqual(sidecarConfig.process.user, { uid: 0, gid: 0 }, "the pod's runAsUser and runAsNonRoot are the workload's");
    assert.deepEqual([sidecarConfig.process.capabilities.bounding, sidecarConfig.process.capabilities.effective], [['CAP_CHOWN'], ['CAP_CHOWN']]);
    assert.equal(sidecarConfig.process.noNewPrivileges, true);
  });

  it("a pod with an fsGroup: every container, whatever its user, reads the key through the group; the files are root's and the fsGroup's", async () => {
    await env.ok(['apply', '-f', '-'], deployment('fs-group', { a: 1000, b: 2000 }, '{fsGroup: 3000}'));
    const pod = await running('fs-group', ['a', 'b', 'edgeplane-sidecar']);
    for (const c of ['a', 'b']) {
      const log = await waitFor(`${c}'s lines`, async () => ((await logOf(pod, c)).includes('tmp-written') ? logOf(pod, c) : undefined));
      assert.equal(log, 'key-read\ntmp-written\n', `container ${c}`);
    }
    assert.deepEqual(owners(pod), { 'client.key': '0:3000 640', 'server.key': '0:3000 640', 'client.crt': '0:3000 644', 'server_ca.crt': '0:3000 644' });
    assert.match((await exec(pod, 'b', ['id'])).output, /^uid=2000 gid=65534\(nogroup\) groups=3000$/m, 'the fsGroup is among the process\'s groups');
  });

  it('a pod whose containers run as different users and has no fsGroup: the key stays root\'s, no container reads it, and the pod is told why', async () => {
    await env.ok(['apply', '-f', '-'], deployment('mixed', { a: 1000, b: 2000 }));
    const pod = await running('mixed', ['a', 'b', 'edgeplane-sidecar']);
    for (const c of ['a', 'b']) {
      const log = await waitFor(`${c}'s lines`, async () => ((await logOf(pod, c)).includes('tmp-written') ? logOf(pod, c) : undefined));
      assert.equal(log, 'tmp-written\n', `container ${c} cannot read the key`);
    }
    assert.deepEqual(owners(pod), { 'client.key': '0:0 600', 'server.key': '0:0 600', 'client.crt': '0:0 644', 'server_ca.crt': '0:0 644' });
    const denied = await exec(pod, 'a', ['cat', `${IDENTITY}/server.key`]);
    assert.notEqual(denied.code, 0);
    assert.match(denied.output, /Permission denied/);
    assert.equal((await exec(pod, 'a', ['cat', `${IDENTITY}/client.crt`])).code, 0, 'certificates are for everyone');
    const events = await waitFor('the IdentityNotShared event', async () => {
      const items = (await env.read<{ items: Array<{ reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }> }>('api/v1/namespaces/default/events'))?.items ?? [];
      return items.find((e) => e.involvedObject?.name === pod.metadata.name && e.reason === 'IdentityNotShared');
    });
    assert.equal(events.type, 'Warning');
    assert.match(events.message ?? '', /different users \(a: 1000, b: 2000\) and the pod has no fsGroup/);
  });
});
