import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerCapabilities, containerFiles, containerOciSpec, containerResources, findRuntimePrograms, hostImagePlan, inspectHost, makeContainerFolders, prepareRoot, RuncContainers } from '../src/site-agent/runtimes/runc/index.js';
import { IpCommand, removeCgroup } from '../src/site-agent/host/index.js';
import { machineBusySeconds } from './proc-stats.js';
import { nowMs } from './stats.js';

/** The same process the bench's pods run, with the same small requests. */
const ARGS = ['sleep', '3600'];
const RESOURCES = { requests: { cpu: '1m', memory: '4Mi' } };

/** Times of raw container starts, in ms: each one's, and the whole batch's. */
export interface RawStarts {
  readonly samples: number[];
  readonly wallMs: number;
  /** CPU seconds the whole machine was busy meanwhile (runc, conmon, ip, the kernel; other work on the machine too). */
  readonly machineCpuSeconds: number;
}

/**
 * The floor under a pod's start: `count` containers started `concurrency` at a time with the
 * runtime's own pieces and nothing else — per container a network namespace of its own
 * (`ip netns add`, loopback up), a host-image root (`hostImagePlan` + `prepareRoot`: the same
 * read-only binds of the host's /usr, /bin, /lib* and /etc essentials), the OCI spec from
 * `containerOciSpec` (Kubernetes' default capabilities, its cgroup and resources), then conmon
 * + `runc create` and `runc start` (`RuncContainers`), timed from the netns until `runc start`
 * returns. No sandbox container, no veth, no sidecar, no control plane. Everything is removed
 * after the batch (not timed).
 */
export async function rawRuncStarts(count: number, concurrency: number): Promise<RawStarts> {
  const programs = findRuntimePrograms();
  const tag = `bench-raw-${process.pid}`;
  const runcRoot = `/run/edgeplane/runc/${tag}`;
  const cgroupParent = `/edgeplane/${tag}`;
  const containers = new RuncContainers(programs.runc, programs.conmon, runcRoot);
  const ip = new IpCommand(programs.ip);
  const plan = hostImagePlan(inspectHost);
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-bench-raw-runc-'));
  const started: Array<{ id: string; netns?: string }> = [];
  const samples: number[] = [];
  const runOne = async (i: number): Promise<void> => {
    const id = `raw-${i}`;
    const netns = `ep-b-${process.pid}-${i}`;
    const entry: { id: string; netns?: string } = { id };
    started.push(entry);
    const t0 = nowMs();
    await ip.run(['netns', 'add', netns]);
    entry.netns = netns;
    await ip.run(['-n', netns, 'link', 'set', 'lo', 'up']);
    const base = join(dir, id);
    const rootfs = join(base, 'rootfs');
    prepareRoot(rootfs, plan);
    const files = containerFiles(base, 'c');
    await makeContainerFolders(files);
    const spec = containerOciSpec({
      rootfs,
      readOnlyRootfs: false,
      args: ARGS,
      env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `HOSTNAME=${id}`],
      cwd: '/',
      uid: 0,
      gid: 0,
      additionalGids: [],
      terminal: false,
      capabilities: containerCapabilities(undefined),
      noNewPrivileges: false,
      oomScoreAdj: 1000,
      resources: containerResources(RESOURCES, 4096),
      cgroupsPath: `${cgroupParent}/${id}`,
      netns: `/var/run/netns/${netns}`,
      hostname: id,
      binds: plan.binds,
      annotations: {},
    });
    writeFileSync(join(files.bundle, 'config.json'), JSON.stringify(spec), { mode: 0o600 });
    await containers.create(id, files);
    await containers.start(id);
    samples.push(nowMs() - t0);
  };
  let next = 0;
  const t0 = nowMs();
  const cpu0 = machineBusySeconds().busy;
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count) }, async () => {
        while (next < count) await runOne(next++);
      }),
    );
    return { samples, wallMs: nowMs() - t0, machineCpuSeconds: machineBusySeconds().busy - cpu0 };
  } finally {
    for (const { id } of started) await containers.delete(id, true).catch(() => undefined);
    for (const { netns } of started) if (netns !== undefined) await ip.run(['netns', 'delete', netns]).catch(() => undefined);
    for (const { id } of started) await removeCgroup(`${cgroupParent}/${id}`);
    await removeCgroup(cgroupParent);
    rmSync(runcRoot, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
