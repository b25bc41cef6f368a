import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { offsetClock, type OffsetClock } from './support/offset-clock.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

interface ContainerStatus {
  readonly name: string;
  readonly restartCount: number;
  readonly state: Record<string, { reason?: string; message?: string } | undefined>;
}
type Pod = KubeObject & { status?: { containerStatuses?: ContainerStatus[] } };
interface Event {
  readonly reason?: string;
  readonly type?: string;
  readonly message?: string;
  readonly involvedObject?: { name?: string };
}

const SITE = 'ce-a';
/** How many starts of the victim the race watches (each one resolves and binds its subPath again). */
const STARTS = 32;

/**
 * CVE-2017-1002101's race: `attacker` swaps folder `d` of an emptyDir for a symlink to `/` and
 * back (renaming the folder away and back, so a start that bound the folder itself can run),
 * again and again, while `victim` mounts `d` by subPath, looks for a marker file the test put
 * in an agent-private folder of the host and for the file only `d` holds, and exits at once to
 * be started again.
 */
const RACE = (marker: string): string => `apiVersion: apps/v1
kind: Deployment
metadata: {name: race, annotations: {svc.io/sites: system/${SITE}}}
spec:
  replicas: 1
  selector: {matchLabels: {app: race}}
  template:
    metadata: {labels: {app: race}}
    spec:
      terminationGracePeriodSeconds: 1
      volumes: [{name: shared, emptyDir: {}}, {name: report, emptyDir: {}}]
      containers:
      - name: attacker
        image: host
        command: [sh, -c, "cd /shared && mkdir -p d && touch d/inside-d && while :; do mv -T d away; ln -s / d; sleep 0.02; rm d; mv -T away d; sleep 0.02; done"]
        resources: {limits: {cpu: 250m, memory: 64Mi}}
        volumeMounts: [{name: shared, mountPath: /shared}]
      - name: victim
        image: host
        command: [sh, -c, "if [ -e /mnt${marker} ]; then echo escaped; elif [ -e /mnt/inside-d ]; then echo contained; else echo elsewhere; fi >> /report/starts"]
        volumeMounts: [{name: shared, mountPath: /mnt, subPath: d}, {name: report, mountPath: /report}]
`;

/** subPaths through symlinks: out of the volume to a folder and to a file (refused), inside it (bound). */
const SYMLINKED = `apiVersion: apps/v1
kind: Deployment
metadata: {name: symlinked, annotations: {svc.io/sites: system/${SITE}}}
spec:
  replicas: 1
  selector: {matchLabels: {app: symlinked}}
  template:
    metadata: {labels: {app: symlinked}}
    spec:
      terminationGracePeriodSeconds: 1
      volumes: [{name: shared, emptyDir: {}}]
      initContainers:
      - name: links
        image: host
        command: [sh, -c, "mkdir /shared/real && echo inside > /shared/real/file && ln -s real /shared/inside && ln -s / /shared/root && ln -s /etc/hostname /shared/hostname"]
        volumeMounts: [{name: shared, mountPath: /shared}]
      containers:
      - name: inside
        image: host
        command: [sh, -c, "cat /data/file && test -d /made && echo made; exec sleep 3600"]
        volumeMounts: [{name: shared, mountPath: /data, subPath: inside}, {name: shared, mountPath: /made, subPath: new/folder}]
      - name: root
        image: host
        command: [sleep, "3600"]
        volumeMounts: [{name: shared, mountPath: /data, subPath: root}]
      - name: file
        image: host
        command: [sleep, "3600"]
        volumeMounts: [{name: shared, mountPath: /etc/name, subPath: hostname}]
`;

describe('subPath on a runc site', () => {
  let env: RuncSiteEnv;
  let clock: OffsetClock;
  before(async () => {
    clock = offsetClock();
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }], { timers: clock.timers });
  });
  after(async () => {
    // A test that failed half-way leaves its pods: remove them before the site goes.
    await env?.kubectl(['delete', 'deployment', '--all', '--wait=false']).catch(() => undefined);
    await waitFor('every pod gone', async () => ((await env.read<{ items: Pod[] }>('api/v1/namespaces/default/pods'))?.items.length === 0 ? true : undefined), { timeoutMs: 60_000 }).catch(() => undefined);
    await env?.close();
  });

  const podOf = async (app: string): Promise<Pod | undefined> =>
    (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items.find((p) => p.metadata.deletionTimestamp === undefined);
  const statusOf = (pod: Pod | undefined, name: string): ContainerStatus | undefined => pod?.status?.containerStatuses?.find((c) => c.name === name);
  const eventsOf = async (podName: string): Promise<Event[]> =>
    ((await env.read<{ items: Event[] }>('api/v1/namespaces/default/events'))?.items ?? []).filter((e) => e.involvedObject?.name === podName);
  const podDir = (uid: string): string => join(env.home(SITE), 'runc', SITE, 'pods', uid);
  const waitForNothingLeft = async (app: string): Promise<void> => {
    await waitFor(`${app}'s pod gone`, async () => ((await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))?.items.length === 0 ? true : undefined), { timeoutMs: 60_000 });
    await waitFor(`nothing of ${app} left`, () => Promise.resolve(podLeftovers(env, SITE).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
      describe: () => podLeftovers(env, SITE).join('\n'),
    });
  };

  it('a symlink swapped in while a container restarts never binds the host: the victim sees its volume over many starts, agent restart included', async () => {
    const marker = join(env.dir, 'host-marker');
    writeFileSync(marker, 'the host\n');
    await env.ok(['apply', '-f', '-'], RACE(marker));
    const uid = (await waitFor('the race pod', async () => (await podOf('race'))?.metadata.uid)) ?? '';
    const startsFile = join(podDir(uid), 'volumes', 'kubernetes.io~empty-dir', 'report', 'starts');
    const starts = (): string[] => (existsSync(startsFile) ? readFileSync(startsFile, 'utf8').split('\n').filter((line) => line !== '') : []);
    let restarted = false;
    /** The waiting messages of the victim's refused starts, as its status showed them. */
    const refusals = new Set<string>();
    try {
      await waitFor(`${STARTS} starts of the victim`, async () => {
        const seen = starts();
        if (seen.includes('escaped') || seen.length >= STARTS) return seen;
        if (!restarted && seen.length >= STARTS / 2) {
          restarted = true;
          await env.restartAgent(SITE);
        }
        const waiting = statusOf(await podOf('race'), 'victim')?.state['waiting'];
        if (waiting?.reason === 'CreateContainerConfigError') refusals.add(waiting.message ?? '');
        // The victim waits out its crash back-off (or, refused, its retry): move the agent's clock past it.
        if (waiting?.reason === 'CrashLoopBackOff' || waiting?.reason === 'CreateContainerConfigError') clock.advance(301_000);
        return undefined;
      }, { timeoutMs: 200_000, intervalMs: 250, describe: async () => `${starts().length} starts; ${JSON.stringify(statusOf(await podOf('race'), 'victim'))}` });
      const seen = starts();
      assert.deepEqual(seen.filter((line) => line !== 'contained'), [], `the victim saw something else than its folder at some start: ${seen.join(', ')}`);
      assert.ok(seen.length >= STARTS);
      const race = (await podOf('race')) as Pod;
      assert.equal(statusOf(race, 'attacker')?.restartCount, 0, 'the attacker kept swapping all along');
      // A start that met the symlink was refused, with kubelet's words. (Its Event may not be
      // there: the many restarts' Events pass the control plane's spam filter, 25 per pod, as
      // kube's do; the next test checks the Event of a refusal.)
      assert.ok(refusals.size > 0, 'a start met the symlink and was refused');
      for (const message of refusals) assert.match(message, /^failed to (prepare subPath|create subPath directory) for volumeMount "shared" of container "victim"$/);
    } finally {
      await env.ok(['delete', 'deployment', 'race', '--wait=false']);
    }
    await waitForNothingLeft('race');
  });

  it('a subPath through a symlink out of the volume fails the start with an Event; one inside the volume is bound, a missing one made', async () => {
    await env.ok(['apply', '-f', '-'], SYMLINKED);
    const pod = await waitFor('the refused containers and the bound one', async () => {
      const p = await podOf('symlinked');
      const refused = ['root', 'file'].every((name) => statusOf(p, name)?.state['waiting']?.reason === 'CreateContainerConfigError');
      return refused && statusOf(p, 'inside')?.state['running'] !== undefined ? p : undefined;
    }, { timeoutMs: 60_000, describe: async () => JSON.stringify((await podOf('symlinked'))?.status?.containerStatuses) });
    assert.equal(statusOf(pod, 'root')?.state['waiting']?.message, 'failed to prepare subPath for volumeMount "shared" of container "root"');
    assert.equal(statusOf(pod, 'file')?.state['waiting']?.message, 'failed to prepare subPath for volumeMount "shared" of container "file"');
    const failed = await waitFor('the Events', async () => {
      const messages = (await eventsOf(pod.metadata.name ?? '')).filter((e) => e.type === 'Warning' && e.reason === 'Failed').map((e) => e.message ?? '');
      return messages.length >= 2 ? messages.sort() : undefined;
    });
    assert.deepEqual(failed, ['Error: failed to prepare subPath for volumeMount "shared" of container "file"', 'Error: failed to prepare subPath for volumeMount "shared" of container "root"']);
    const logs = await env.ok(['logs', pod.metadata.name ?? '', '-c', 'inside']);
    assert.equal(logs, 'inside\nmade\n', 'the symlink inside the volume was followed, the missing folder made');
    // Deleted while the agent was down: the restarted agent adopts the pod, then removes it, its subPath binds included.
    await env.restartAgent(SITE, () => env.ok(['delete', 'deployment', 'symlinked', '--wait=false']).then(() => undefined));
    await waitForNothingLeft('symlinked');
  });
});
