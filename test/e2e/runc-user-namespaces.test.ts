import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { busyboxImageSpec, writeOciLayout } from '../../src/testing/oci-image-builder.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

type Pod = KubeObject & { status?: { phase?: string; conditions?: { type?: string; status?: string }[] } };

const SITE = 're-a';
const EDGEPLANE = fileURLToPath(new URL('../../../bin/edgeplane.js', import.meta.url));

/** A Deployment of one host-image pod with an emptyDir at /data, running `script` then sleeping. */
function podYaml(name: string, script: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      volumes: [{name: data, emptyDir: {}}]
      containers:
      - name: c
        image: host
        volumeMounts: [{name: data, mountPath: /data}]
        command: [sh, -c, ${JSON.stringify(`${script}; echo done; exec sleep 3600`)}]
`;
}

const PROBE = 'echo uid=$(id -u); cat /proc/self/uid_map; echo made > /data/made; ls /svc/secrets/identity';

/** The first line of a uid_map: `<inside> <host> <count>`. */
function mapOf(output: string): { readonly inside: number; readonly host: number; readonly count: number } {
  const line = /^\s*(\d+)\s+(\d+)\s+(\d+)\s*$/m.exec(output);
  assert.ok(line !== null, `a uid_map line in: ${output}`);
  return { inside: Number(line[1]), host: Number(line[2]), count: Number(line[3]) };
}

/**
 * User namespaces on a real runc regional edge shared by two virtual clusters: container root
 * is uid 0 inside and a host id of its cluster's range outside; what it writes is that id's on
 * the host; a host-root file it sees it cannot change; the two clusters' ranges are disjoint.
 */
describe('pods in user namespaces on a runc regional edge', () => {
  let env: RuncSiteEnv;
  before(async () => {
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true, type: 'REGIONAL_EDGE' }], { clusters: ['vk2'] });
  });
  after(async () => {
    if (env !== undefined) {
      await env.kubectl(['delete', 'deployments', '--all', '--wait=true', '--timeout=60s']);
      await env.okIn('vk2', ['delete', 'deployments', '--all', '--wait=true', '--timeout=60s']);
      await waitFor('the site\'s pods gone', () => Promise.resolve(podLeftovers(env, SITE).length === 0 ? true : undefined), { timeoutMs: 30_000, describe: () => podLeftovers(env, SITE).join('\n') });
      await env.close();
    }
  });

  const podOf = async (name: string): Promise<Pod | undefined> =>
    (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${name}`))?.items.find((p) => p.metadata.deletionTimestamp === undefined);
  const ready = (name: string): Promise<Pod> =>
    waitFor(`${name} Ready`, async () => {
      const pod = await podOf(name);
      return pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? pod : undefined;
    }, { timeoutMs: 90_000, describe: async () => JSON.stringify((await podOf(name))?.status) });

  it('container root is uid 0 inside, its cluster\'s range outside: its emptyDir files are that id\'s, a host-root file it sees stays host root\'s', async () => {
    await env.ok(['apply', '-f', '-'], podYaml('who', PROBE));
    const pod = await ready('who');
    const name = pod.metadata.name ?? '';
    const output = await env.ok(['logs', name, '-c', 'c']);
    assert.match(output, /^uid=0$/m, 'root inside');
    const map = mapOf(output);
    assert.deepEqual([map.inside, map.count], [0, 65536], 'one range of 65536 ids');
    assert.ok(map.host >= 65536, `not the host's own ids: ${map.host}`);
    assert.match(output, /client\.key/, 'the sidecar (root of the namespace too) wrote the identity files');
    const ranges = JSON.parse(readFileSync(join(env.home(SITE), 'runc', SITE, 'user-ranges.json'), 'utf8')) as Record<string, number>;
    assert.deepEqual(Object.values(ranges), [map.host], 'the range the site recorded for the cluster');

    const emptyDir = join(env.home(SITE), 'runc', SITE, 'pods', pod.metadata.uid ?? '', 'volumes', 'kubernetes.io~empty-dir', 'data');
    const made = statSync(join(emptyDir, 'made'));
    assert.deepEqual([made.uid, made.gid], [map.host, map.host], 'the file root made is the range\'s root on the host, not 0');
    // A file of host root's the container sees, in a folder it may write.
    const hostFile = join(emptyDir, 'host-owned');
    writeFileSync(hostFile, 'host\n', { mode: 0o644 });
    const tries = await env.ok(['exec', name, '-c', 'c', '--', 'sh', '-c',
      'ls -ln /data/host-owned; echo x >> /data/host-owned; echo append=$?; chmod 666 /data/host-owned; echo chmod=$?; chown 0 /data/host-owned; echo chown=$?; id -u']);
    assert.match(tries, /^-rw-r--r--\s+1\s+65534\s+65534\s/m, 'host root shows as the overflow id (nobody)');
    assert.match(tries, /append=[12]/);
    assert.match(tries, /chmod=1/);
    assert.match(tries, /chown=1/);
    assert.match(tries, /^0$/m, 'and it was root that tried');
    assert.equal(readFileSync(hostFile, 'utf8'), 'host\n');
    const still = statSync(hostFile);
    assert.deepEqual([still.uid, still.mode & 0o777], [0, 0o644]);
  });

  it('two virtual clusters on the site get disjoint ranges', async () => {
    await env.ok(['apply', '-f', '-'], podYaml('who', PROBE));
    await env.okIn('vk2', ['apply', '-f', '-'], podYaml('other', PROBE));
    const mine = mapOf(await env.ok(['logs', (await ready('who')).metadata.name ?? '', '-c', 'c']));
    const theirs = await waitFor('vk2\'s pod output', async () => {
      const pods = JSON.parse(await env.okIn('vk2', ['get', 'pods', '-l', 'app=other', '-o', 'json'])) as { items: Pod[] };
      const pod = pods.items[0]?.metadata.name;
      if (pod === undefined) return undefined;
      const logs = await env.okIn('vk2', ['logs', pod, '-c', 'c']).catch(() => '');
      return logs.includes('done') ? { pod, logs } : undefined;
    }, { timeoutMs: 90_000 });
    assert.match(theirs.logs, /^uid=0$/m);
    const other = mapOf(theirs.logs);
    assert.ok(other.host + other.count <= mine.host || mine.host + mine.count <= other.host, `disjoint: ${mine.host} and ${other.host}`);
  });

  it('an imported image runs in the namespace on its copy shifted into the range: root inside writes its own /etc; on the host the files are the range\'s', async () => {
    const layout = join(env.dir, 'busybox-layout');
    writeOciLayout(layout, busyboxImageSpec());
    execFileSync(process.execPath, [EDGEPLANE, 'image', 'import', layout, '--name', 'busybox:userns', '--home', env.home(SITE)], { stdio: 'pipe' });
    const yaml = podYaml('boxed', 'ls -ln /bin/busybox; echo new > /etc/made-here; echo etc=$?').replace('image: host', 'image: busybox:userns\n        securityContext: {runAsUser: 0}');
    await env.ok(['apply', '-f', '-'], yaml);
    const pod = await ready('boxed');
    const output = await env.ok(['logs', pod.metadata.name ?? '', '-c', 'c']);
    assert.match(output, /etc=0/, 'root inside writes its root file system');
    assert.match(output, /^-\S+\s+\d+\s+0\s+0\s.*\/bin\/busybox$/m, 'the image\'s root-owned files are root\'s inside');
    const map = mapOf(await env.ok(['exec', pod.metadata.name ?? '', '-c', 'c', '--', 'cat', '/proc/self/uid_map']));
    const images = join(env.home(SITE), 'images', 'sha256');
    const shifted = readdirSync(images).map((digest) => join(images, digest, 'shifted', String(map.host), 'rootfs', 'bin', 'busybox')).filter((path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    });
    assert.equal(shifted.length, 1, 'one shifted copy of the image for the range');
    assert.deepEqual([statSync(shifted[0] as string).uid, statSync(shifted[0] as string).gid], [map.host, map.host], 'its files are the range\'s root on the host');
  });
});
