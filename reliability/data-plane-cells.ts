import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { registerAgent } from '../src/site-agent/register-agent.js';
import { siteCgroupParent } from '../src/site-agent/runtimes/runc/index.js';
import { SiteApiError } from '../src/site-agent/site-api-error.js';
import { dnsProbe, httpProbe, tcpProbe } from '../test/e2e/support/network-probes.js';
import type { SharedCluster, SharedRuncSite } from '../test/e2e/support/shared-runc-site.js';

/** What a cell needs of the shared regional edge: the site, and the addresses the setup learnt. */
export interface DataPlaneWorld {
  readonly env: SharedRuncSite;
  /** vk1's (the victim's) and vk2's (the attacker's) addresses: their `web` pods, `web` Services and name servers. */
  readonly victim: { readonly podIP: string; readonly clusterIP: string; readonly nameserver: string };
  readonly own: { readonly peerIP: string; readonly clusterIP: string; readonly nameserver: string };
  readonly gateway: string;
}

/** One attack (or a control that must keep working) on a regional edge shared by two tenants. */
export interface DataPlaneCell {
  readonly id: string;
  readonly attack: string;
  /** What stops it (or, for a control, what it shows still works). */
  readonly layer: string;
  readonly kind: 'attack' | 'control';
  /** Part of the short scale (`npm test`). */
  readonly short: boolean;
  /** Undefined when it went as it must; otherwise what happened. */
  run(world: DataPlaneWorld): Promise<string | undefined>;
}

const ATTACKER: SharedCluster = 'vk2';
/**
 * The site's `--pod-pids-limit` in the matrix: low enough that a fork bomb meets it within the
 * cell's minute on a regional edge whose default CPU share for a pod without limits is small.
 */
export const POD_PIDS_LIMIT = 512;

/**
 * A Deployment of one pod on the regional edge `site`: container `c` on the host image runs
 * `command` (a YAML flow list), with `pod` lines added to the pod's spec and `container` lines
 * to the container.
 */
export function workloadYaml(name: string, site: string, o: { readonly command: string; readonly pod?: string; readonly container?: string }): string {
  const indent = (text: string | undefined, by: string): string => (text ?? '').replace(/^(?=.)/gm, by);
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {svc.io/sites: "svc-io-system/${site}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
${indent(o.pod, '      ')}      containers:
      - name: c
        image: host
        command: ${o.command}
${indent(o.container, '        ')}`;
}

/** Asks `look` every half second for up to `seconds`: its first verdict (false: none yet), else what `timeout` says then. */
async function poll(seconds: number, look: () => Promise<false | string | undefined>, timeout: () => string): Promise<string | undefined> {
  for (let i = 0; i < seconds * 2; i++) {
    const verdict = await look();
    if (verdict !== false) return verdict;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return timeout();
}

/** An admission cell: the template is refused with kube's Pod Security words. */
function refusedAtAdmission(id: string, attack: string, pod: string, container: string, short = false): DataPlaneCell {
  return {
    id,
    attack,
    layer: 'vK8s admission: Pod Security baseline (403)',
    kind: 'attack',
    short,
    async run({ env }) {
      const run = await env.kubectl(ATTACKER, ['apply', '-f', '-'], workloadYaml(`adm-${id}`, env.site, { command: '[sleep, "3600"]', pod, container }));
      if (run.status === 0) return 'admitted';
      return /violates PodSecurity "baseline:latest"/.test(run.stderr) ? undefined : `refused otherwise: ${run.stderr.trim()}`;
    },
  };
}

/** Runs `args` in vk2's `attacker` pod (kubectl exec: the container's own capabilities and filter); its output and exit. */
async function inAttacker(world: DataPlaneWorld, args: readonly string[]): Promise<{ status: number | null; out: string }> {
  const run = await world.env.kubectl(ATTACKER, ['exec', 'deploy/attacker', '-c', 'c', '--', ...args]);
  return { status: run.status, out: `${run.stdout}${run.stderr}`.trim() };
}

/** A runtime cell: the command must fail, its output matching `refusal`. */
function refusedInPod(id: string, attack: string, layer: string, args: readonly string[], refusal: RegExp, short = true): DataPlaneCell {
  return {
    id,
    attack,
    layer,
    kind: 'attack',
    short,
    async run(world) {
      const { status, out } = await inAttacker(world, args);
      if (status === 0 && !refusal.test(out)) return `it worked: ${out.slice(0, 200)}`;
      return refusal.test(out) ? undefined : `failed otherwise (${status}): ${out.slice(0, 200)}`;
    },
  };
}

/** A node probe from the attacker's pod whose printed answer must match `expect`. */
function probe(id: string, attack: string, layer: string, kind: DataPlaneCell['kind'], script: (world: DataPlaneWorld) => string, expect: RegExp): DataPlaneCell {
  return {
    id,
    attack,
    layer,
    kind,
    short: true,
    async run(world) {
      const { out } = await inAttacker(world, ['node', '-e', script(world)]);
      return expect.test(out) ? undefined : `answered: ${out.slice(0, 200)}`;
    },
  };
}

const ADMISSION: readonly DataPlaneCell[] = [
  refusedAtAdmission('cap-sys-admin', 'capabilities add SYS_ADMIN (the release_agent escape)', '', 'securityContext: {capabilities: {add: [SYS_ADMIN]}}\n', true),
  refusedAtAdmission('cap-net-admin', 'capabilities add NET_ADMIN (take another pod\'s IP)', '', 'securityContext: {capabilities: {add: [NET_ADMIN]}}\n'),
  refusedAtAdmission('cap-net-raw', 'capabilities add NET_RAW (forge ARP)', '', 'securityContext: {capabilities: {add: [NET_RAW]}}\n'),
  refusedAtAdmission('privileged', 'privileged: true', '', 'securityContext: {privileged: true}\n', true),
  refusedAtAdmission('host-network', 'hostNetwork: true', 'hostNetwork: true\n', ''),
  refusedAtAdmission('host-pid', 'hostPID: true', 'hostPID: true\n', ''),
  refusedAtAdmission('host-ipc', 'hostIPC: true', 'hostIPC: true\n', ''),
  refusedAtAdmission('host-port', 'hostPort 8080', '', 'ports: [{containerPort: 8080, hostPort: 8080}]\n'),
  refusedAtAdmission('host-path', 'a hostPath volume of /', 'volumes: [{name: h, hostPath: {path: /}}]\n', 'volumeMounts: [{name: h, mountPath: /host}]\n', true),
  refusedAtAdmission('sysctl-core-pattern', 'sysctl kernel.core_pattern (a host sysctl)', 'securityContext: {sysctls: [{name: kernel.core_pattern, value: "|/tmp/x"}]}\n', ''),
  refusedAtAdmission('seccomp-unconfined', 'seccompProfile Unconfined', '', 'securityContext: {seccompProfile: {type: Unconfined}}\n'),
  refusedAtAdmission('proc-mount', 'procMount Unmasked', '', 'securityContext: {procMount: Unmasked}\n'),
];

const RUNTIME: readonly DataPlaneCell[] = [
  refusedInPod('cgroup-mount', 'mount the host\'s freezer cgroup (release_agent, step one)', 'no CAP_SYS_ADMIN, a cgroup namespace, seccomp', ['sh', '-c', 'mkdir -p /tmp/cg && mount -t cgroup -o freezer cg /tmp/cg'], /Operation not permitted|permission denied/i),
  refusedInPod('user-namespace', 'unshare a user namespace (every capability inside it)', 'seccomp RuntimeDefault', ['unshare', '-U', 'true'], /Operation not permitted/),
  refusedInPod('raw-socket', 'open a raw packet socket (forge ARP on the bridge)', 'no CAP_NET_RAW', ['python3', '-c', 'import socket;socket.socket(socket.AF_PACKET,socket.SOCK_RAW)'], /PermissionError|Operation not permitted/),
  refusedInPod('take-ip', 'add the victim\'s IP to its own interface', 'no CAP_NET_ADMIN', ['sh', '-c', 'ip addr add 10.255.255.1/32 dev eth0'], /Operation not permitted|RTNETLINK answers/),
  refusedInPod('host-files', 'read the host\'s /etc/shadow', 'its own root (host-image pods see /usr, /bin, /lib* only)', ['cat', '/etc/shadow'], /No such file/),
  refusedInPod('other-processes', 'see another pod\'s processes (/proc/<pid>/root)', 'its own PID namespace', ['sh', '-c', 'ls /proc | grep -c "^[0-9]" | awk \'{ if ($1 > 10) print "saw " $1; else { print "own only"; exit 1 } }\''], /own only/),
];

const NETWORK: readonly DataPlaneCell[] = [
  probe('victim-pod', 'connect to the other tenant\'s pod IP', 'site filter: clusters apart at L3', 'attack', (w) => tcpProbe(w.victim.podIP, 8080), /^(TIMEOUT|ERR EHOSTUNREACH|ERR ECONNREFUSED)$/),
  probe('victim-service', 'connect to the other tenant\'s ClusterIP', 'site filter: a cluster\'s Services only', 'attack', (w) => tcpProbe(w.victim.clusterIP, 80), /^(TIMEOUT|ERR ECONNREFUSED)$/),
  probe('victim-dns', 'ask the other tenant\'s name server', 'site filter: its own name server only', 'attack', (w) => dnsProbe(w.victim.nameserver, 'web.default.svc.cluster.local'), /^(ETIMEOUT|ECONNREFUSED)$/),
  probe('relay-metrics', 'GET /metrics through the gateway relay', 'pod-facing API: the sidecar\'s routes only (404)', 'attack', (w) => relayGet(w.gateway, '/metrics'), /^404$/),
  probe('relay-version', 'GET /version through the gateway relay', 'pod-facing API (404)', 'attack', (w) => relayGet(w.gateway, '/version'), /^404$/),
  probe('own-pod', 'its own cluster\'s other pod', 'control', 'control', (w) => httpProbe(`http://${w.own.peerIP}:8080/`), /^web-\S+ /),
  probe('own-service', 'its own Service\'s ClusterIP', 'control', 'control', (w) => httpProbe(`http://${w.own.clusterIP}/`), /^web-\S+ /),
  probe('own-dns', 'its own names', 'control', 'control', (w) => dnsProbe(w.own.nameserver, 'web.team.svc.cluster.local'), /^\d+\.\d+\.\d+\.\d+$/),
];

/** Node: HTTPS GET through the gateway relay (the platform's certificate is not checked: the status is what counts). */
function relayGet(gateway: string, path: string): string {
  return `require('https').get({host:${JSON.stringify(gateway)},port:8443,path:${JSON.stringify(path)},rejectUnauthorized:false,agent:false},(s)=>{console.log(s.statusCode);process.exit(0)}).on('error',(e)=>{console.log('ERR '+e.code);process.exit(0)})`;
}

/** An init container plants a symlink to / in the emptyDir; the container mounts it by subPath. */
const SUBPATH_ESCAPE = {
  command: '[sleep, "3600"]',
  pod: 'volumes: [{name: v, emptyDir: {}}]\ninitContainers:\n- {name: plant, image: host, command: [sh, -c, "ln -sfn / /v/d"], volumeMounts: [{name: v, mountPath: /v}]}\n',
  container: 'volumeMounts: [{name: v, mountPath: /host, subPath: d}]\n',
};

const DISK_FLOOD = {
  command: '[sh, -c, "dd if=/dev/zero of=/scratch/fill bs=1M count=50; sleep 3600"]',
  pod: 'volumes: [{name: scratch, emptyDir: {sizeLimit: 10Mi}}]\n',
  container: 'volumeMounts: [{name: scratch, mountPath: /scratch}]\n',
};

const STATEFUL: readonly DataPlaneCell[] = [
  {
    id: 'disk-flood',
    attack: 'write 50 MB into an emptyDir of sizeLimit 10Mi',
    layer: 'the site measures and evicts (kubelet\'s Evicted)',
    kind: 'attack',
    short: true,
    async run({ env }) {
      await env.ok(ATTACKER, ['apply', '-f', '-'], workloadYaml('flood', env.site, DISK_FLOOD));
      const verdict = await poll(60, async () => {
        const run = await env.kubectl(ATTACKER, ['get', 'pods', '-l', 'app=flood', '-o', 'jsonpath={range .items[*]}{.status.phase}/{.status.reason}{"\\n"}{end}']);
        return /^Failed\/Evicted$/m.test(run.stdout) ? undefined : false;
      }, () => 'not evicted within 60 s');
      await env.kubectl(ATTACKER, ['delete', 'deployment', 'flood', '--wait=false']);
      return verdict;
    },
  },
  {
    id: 'subpath-symlink',
    attack: 'mount a subPath that a container turned into a symlink to the host\'s /',
    layer: 'subPath opened by descriptor without following symlinks',
    kind: 'attack',
    short: true,
    async run({ env }) {
      await env.ok(ATTACKER, ['apply', '-f', '-'], workloadYaml('subpath', env.site, SUBPATH_ESCAPE));
      return poll(60, async () => {
        const run = await env.kubectl(ATTACKER, ['get', 'pods', '-l', 'app=subpath', '-o', 'jsonpath={.items[0].status.containerStatuses[0].state}']);
        if (/"running"/.test(run.stdout)) return 'the container started with the symlink mounted';
        if (!/CreateContainerConfigError/.test(run.stdout)) return false;
        return /failed to prepare subPath/.test(run.stdout) ? undefined : `refused otherwise: ${run.stdout}`;
      }, () => 'no verdict within 60 s');
    },
  },
];

const SITE_TAKEOVER: DataPlaneCell = {
  id: 'site-takeover',
  attack: 'register a new agent under the online site\'s name with a fresh multi-use regional-edge token',
  layer: 'site registration: 409, a site never moves to another agent',
  kind: 'attack',
  short: true,
  async run({ env }) {
    const issued = await env.h.call('POST', '/api/sites/v1/tokens', { token: env.h.platformToken, body: { type: 'REGIONAL_EDGE', ttl_seconds: 600 } });
    if (issued.status !== 200) return `no token to try with: ${issued.status} ${issued.body}`;
    const token = issued.json<{ token: string }>().token;
    try {
      await registerAgent({ server: env.h.url, ca: env.h.ca, token, agent: 'thief', sites: [{ name: env.site, type: 'REGIONAL_EDGE', labels: { edge: 'true' }, nodes: [{ name: 'n0', cpu: '2', memory: '4Gi' }] }] });
      return 'the site moved to the thief';
    } catch (error) {
      return error instanceof SiteApiError && error.status === 409 ? undefined : `refused otherwise: ${error instanceof Error ? error.message : String(error)}`;
    }
  },
};

const FORK_BOMB = { command: '[sh, -c, "mkfifo /tmp/f; i=0; while [ $i -lt 5000 ]; do (read x < /tmp/f) & i=$((i+1)); done 2>/dev/null; sleep 3600"]' };

/** A pids controller file (or folder, `file` empty) of a pod's cgroup on the host (cgroup v1's pids hierarchy, or v2's unified one). */
function podPidsFile(world: DataPlaneWorld, uid: string, file: string): string {
  const path = `${siteCgroupParent(world.env.netns)}/${uid}/${file}`;
  return existsSync('/sys/fs/cgroup/cgroup.controllers') ? `/sys/fs/cgroup${path}` : `/sys/fs/cgroup/pids${path}`;
}

/**
 * Last: the pod it saturates is its own, but the host's processes are what it spends. Each
 * process is a forked shell blocked opening a FIFO (no exec: thousands a second).
 */
const FORK_BOMB_CELL: DataPlaneCell = {
  id: 'fork-bomb',
  attack: 'a fork bomb (5,000 processes in one pod)',
  layer: `the pod's pids.max for all its containers (--pod-pids-limit, ${POD_PIDS_LIMIT} here; 4096 by default)`,
  kind: 'attack',
  short: false,
  async run(world) {
    const { env } = world;
    await env.ok(ATTACKER, ['apply', '-f', '-'], workloadYaml('bomb', env.site, FORK_BOMB));
    try {
      let uid = '';
      let most = 0;
      return await poll(90, async () => {
        uid ||= (await env.kubectl(ATTACKER, ['get', 'pods', '-l', 'app=bomb', '-o', 'jsonpath={.items[0].metadata.uid}'])).stdout.trim();
        if (uid === '' || !existsSync(podPidsFile(world, uid, 'pids.current'))) return false;
        most = Math.max(most, Number(readFileSync(podPidsFile(world, uid, 'pids.current'), 'utf8')));
        const cgroups = [podPidsFile(world, uid, ''), ...readdirSync(podPidsFile(world, uid, ''), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => podPidsFile(world, uid, e.name))];
        const refused = cgroups.map((dir) => Number(/^max (\d+)$/m.exec(readFileSync(`${dir}/pids.events`, 'utf8'))?.[1] ?? '0')).reduce((a, b) => a + b, 0);
        if (refused === 0) return false;
        return most <= POD_PIDS_LIMIT ? undefined : `the pod held ${most} processes`;
      }, () => `the bomb never met its pod's limit within 90 s (most seen: ${most})`);
    } finally {
      await env.kubectl(ATTACKER, ['delete', 'deployment', 'bomb', '--wait=false']);
    }
  },
};

/** Every cell, in the order they run. */
export function dataPlaneCells(): readonly DataPlaneCell[] {
  return [...ADMISSION, ...RUNTIME, ...STATEFUL, ...NETWORK, SITE_TAKEOVER, FORK_BOMB_CELL];
}
