import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { podContainerId, runcStateRoot } from '../../src/site-agent/runtimes/runc/index.js';
import { toolPath } from '../../src/testing/tools.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

interface ContainerStatus {
  readonly name: string;
  readonly state: Record<string, { reason?: string; message?: string } | undefined>;
}
type Pod = KubeObject & { status?: { phase?: string; reason?: string; message?: string; containerStatuses?: ContainerStatus[] } };
interface Event {
  readonly reason?: string;
  readonly type?: string;
  readonly message?: string;
  readonly involvedObject?: { name?: string };
}

const SITE = 'ce-a';

/**
 * A Deployment of one pod (label `app: <name>`) of one container `c` on the host image,
 * running `script` then sleeping (its output is what the test reads), with `spec` and
 * `container` YAML lines added (indented for the pod template).
 */
function podYaml(name: string, script: string, o: { spec?: string; container?: string } = {}): string {
  const indent = (text: string | undefined, by: string): string => (text ?? '').replace(/^(?=.)/gm, by);
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: system/${SITE}}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
${indent(o.spec, '      ')}      containers:
      - name: c
        image: host
        command: [sh, -c, ${JSON.stringify(`${script}; echo done; exec sleep 3600`)}]
${indent(o.container, '        ')}`;
}

/** What an unprivileged user namespace gives a process (the first step of many kernel exploits), and what the filter says. */
const PROBE = 'grep Seccomp: /proc/self/status; unshare -U true 2>&1; echo unshare=$?; mkdir /tmp/m 2>&1; echo mkdir=$?';

/**
 * Seccomp and sysctls on a real runc site, through kubectl: every container is filtered
 * (RuntimeDefault) unless the pod asks otherwise, a Localhost profile comes from the site's
 * folder, a pod's safe sysctls are set in its own namespaces and the host's never are, and a
 * field the site ignores is told in an Event.
 */
describe('seccomp, sysctls and ignored fields on a runc site', () => {
  let env: RuncSiteEnv;
  let hostCorePattern: string;
  before(async () => {
    hostCorePattern = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }]);
    const profiles = join(env.home(SITE), 'seccomp', 'profiles');
    mkdirSync(profiles, { recursive: true });
    const denyMkdir = { defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['mkdir', 'mkdirat'], action: 'SCMP_ACT_ERRNO', errnoRet: 13 }] };
    writeFileSync(join(profiles, 'deny-mkdir.json'), JSON.stringify(denyMkdir));
  });
  after(async () => {
    if (env !== undefined) {
      await env.kubectl(['delete', 'deployments', '--all', '--wait=true', '--timeout=60s']);
      await waitFor('the site\'s pods gone', () => Promise.resolve(podLeftovers(env, SITE).length === 0 ? true : undefined), { timeoutMs: 30_000 });
      await env.close();
    }
    assert.equal(readFileSync('/proc/sys/kernel/core_pattern', 'utf8'), hostCorePattern, 'the host\'s core_pattern is untouched');
  });

  /** The live pod of Deployment `name`. */
  const podOf = async (name: string): Promise<Pod | undefined> =>
    (await env.read<{ items: Pod[] }>(`api/v1/namespaces/default/pods?labelSelector=app%3D${name}`))?.items.find((p) => p.metadata.deletionTimestamp === undefined);
  const outputOf = (name: string): Promise<string> =>
    waitFor(`${name}'s output`, async () => {
      const pod = await podOf(name);
      if (pod === undefined) return undefined;
      const run = await env.kubectl(['logs', pod.metadata.name ?? '', '-c', 'c']);
      return run.status === 0 && run.stdout.includes('done') ? run.stdout : undefined;
    }, { timeoutMs: 60_000, describe: async () => JSON.stringify((await podOf(name))?.status) });
  /** The Events about the live pod of Deployment `name`. */
  const eventsOf = async (name: string): Promise<Event[]> => {
    const pod = (await podOf(name))?.metadata.name;
    return ((await env.read<{ items: Event[] }>('api/v1/namespaces/default/events'))?.items ?? []).filter((e) => pod !== undefined && e.involvedObject?.name === pod);
  };
  const setFloor = async (floor: 'BASELINE' | 'PRIVILEGED'): Promise<void> => {
    const path = '/api/config/namespaces/default/virtual_k8ss/vk1';
    const current = (await env.h.call('GET', path)).json<{ metadata: Record<string, unknown>; spec: Record<string, unknown> }>();
    const answer = await env.h.call('PUT', path, { body: { metadata: current.metadata, spec: { ...current.spec, pod_security_floor: floor } } });
    assert.equal(answer.status, 200, answer.body);
  };

  it('filters every container with RuntimeDefault: no user namespace to gain capabilities in; the sidecar is filtered too', async () => {
    await env.ok(['apply', '-f', '-'], podYaml('filtered', PROBE));
    const output = await outputOf('filtered');
    assert.match(output, /^Seccomp:\s+2$/m, 'a filter is loaded');
    assert.match(output, /unshare: unshare failed: Operation not permitted\nunshare=1/, 'unshare(CLONE_NEWUSER) is refused');
    assert.match(output, /mkdir=0/, 'what the default allows works');
    // exec into the sidecar is refused (it holds the private key): its process and the pod's infra process are read from the host.
    const uid = (await podOf('filtered'))?.metadata.uid ?? '';
    for (const container of ['edgeplane-sidecar-0', 'infra']) {
      const state = spawnSync(toolPath('runc'), ['--root', runcStateRoot(env.netns(SITE)), 'state', podContainerId(uid, container)], { encoding: 'utf8' });
      assert.equal(state.status, 0, state.stderr);
      const pid = (JSON.parse(state.stdout) as { pid: number }).pid;
      assert.match(readFileSync(`/proc/${pid}/status`, 'utf8'), /^Seccomp:\s+2$/m, container);
    }
  });

  it('a Localhost profile comes from the site\'s folder; a missing one or one outside it is a config error', async () => {
    await env.ok(['apply', '-f', '-'], podYaml('local', PROBE, { container: 'securityContext: {seccompProfile: {type: Localhost, localhostProfile: profiles/deny-mkdir.json}}\n' }));
    const output = await outputOf('local');
    assert.match(output, /mkdir: can't create directory '\/tmp\/m': Permission denied|mkdir: cannot create directory '\/tmp\/m': Permission denied/);
    assert.match(output, /mkdir=1/);
    assert.match(output, /unshare=0/, 'the profile allows what it does not deny');
    for (const [name, profile, message] of [
      ['missing', 'profiles/none.json', /cannot load seccomp profile "profiles\/none.json" from the site's profile folder: ENOENT/],
      ['escape', '../../../../etc/passwd', /must be a relative path below the site's seccomp profile folder/],
    ] as const) {
      await env.ok(['apply', '-f', '-'], podYaml(name, 'true', { container: `securityContext: {seccompProfile: {type: Localhost, localhostProfile: ${JSON.stringify(profile)}}}\n` }));
      const waiting = await waitFor(`${name} waits`, async () => {
        const state = (await podOf(name))?.status?.containerStatuses?.find((c) => c.name === 'c')?.state['waiting'];
        return state?.reason === 'CreateContainerConfigError' ? state : undefined;
      }, { timeoutMs: 30_000 });
      assert.match(waiting.message ?? '', message);
    }
  });

  it('sets a pod\'s safe sysctls in its own namespaces; the API refuses the host\'s under baseline', async () => {
    await env.ok(['apply', '-f', '-'], podYaml('tuned', 'cat /proc/sys/net/ipv4/ip_local_port_range', { spec: 'securityContext: {sysctls: [{name: net.ipv4.ip_local_port_range, value: "20000 20100"}]}\n' }));
    assert.match(await outputOf('tuned'), /^20000\s+20100$/m);
    const refused = await env.kubectl(['apply', '-f', '-'], podYaml('core', 'true', { spec: 'securityContext: {sysctls: [{name: kernel.core_pattern, value: "|/tmp/x"}]}\n' }));
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /violates PodSecurity "baseline:latest": forbidden sysctls \(kernel\.core_pattern\)/);
  });

  it('where the floor is lifted: the host\'s sysctls fail the pod (SysctlForbidden), namespaced ones are set, Unconfined is unfiltered, ignored fields are told', async () => {
    await setFloor('PRIVILEGED');
    try {
      await env.ok(['apply', '-f', '-'], podYaml('core', 'true', { spec: 'securityContext: {sysctls: [{name: kernel.core_pattern, value: "|/tmp/x"}]}\n' }));
      const failed = await waitFor('core Failed', async () => {
        const pod = await podOf('core');
        return pod?.status?.phase === 'Failed' ? pod : undefined;
      }, { timeoutMs: 30_000, describe: async () => JSON.stringify((await podOf('core'))?.status) });
      assert.equal(failed.status?.reason, 'SysctlForbidden');
      assert.equal(failed.status?.message, 'Pod forbidden sysctl: "kernel.core_pattern" not allowed');
      await waitFor('a SysctlForbidden Event', async () => ((await eventsOf('core')).some((e) => e.type === 'Warning' && e.reason === 'SysctlForbidden') ? true : undefined));

      await env.ok(['apply', '-f', '-'], podYaml('somaxconn', 'cat /proc/sys/net/core/somaxconn', { spec: 'securityContext: {sysctls: [{name: net.core.somaxconn, value: "1234"}]}\n' }));
      assert.match(await outputOf('somaxconn'), /^1234$/m);

      await env.ok(['apply', '-f', '-'], podYaml('open', PROBE, { container: 'securityContext: {seccompProfile: {type: Unconfined}}\n' }));
      const output = await outputOf('open');
      assert.match(output, /^Seccomp:\s+0$/m);
      assert.match(output, /unshare=0/, 'the control: without the filter the same call succeeds');

      await env.ok(['apply', '-f', '-'], podYaml('hosty', 'true', { spec: 'hostNetwork: true\nhostPID: true\n', container: 'ports: [{containerPort: 8080, hostPort: 8080}]\n' }));
      const told = await waitFor('a FieldsIgnored Event', async () => (await eventsOf('hosty')).find((e) => e.reason === 'FieldsIgnored'), { timeoutMs: 30_000 });
      assert.equal(told.type, 'Warning');
      assert.match(told.message ?? '', /ignored: spec\.hostNetwork, spec\.hostPID, spec\.containers\[0\]\.ports\[0\]\.hostPort \(8080\)$/);
    } finally {
      await setFloor('BASELINE');
    }
  });
});
