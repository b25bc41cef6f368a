import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { removeCgroup } from '../site-agent/host/index.js';
import { podNamespaceName, releaseSiteCidr, releaseUserRangeClaims, runcStateRoot, siteCgroupParent, siteNamespaceName, unmountAllUnder } from '../site-agent/runtimes/runc/index.js';
import { toolPath } from './tools.js';

/**
 * Clean-up of runc sites that tests and benchmarks started: what a site leaves on the machine
 * once its agent is gone. Shared by the e2e fixture (test/e2e/support/runc-site-env.ts) and
 * `npm run bench -- runtime`.
 */

/** The pids of the processes in a cgroup tree of the memory hierarchy. */
function processesUnder(cgroup: string): number[] {
  const root = join('/sys/fs/cgroup/memory', cgroup);
  if (!existsSync(root)) return [];
  const pids: number[] = [];
  const visit = (dir: string): void => {
    for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (line !== '') pids.push(Number(line));
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(join(dir, entry.name));
  };
  visit(root);
  return pids;
}

/** Removes a cgroup tree, children first, from every hierarchy. */
async function removeCgroupTree(cgroup: string): Promise<void> {
  const root = join('/sys/fs/cgroup/memory', cgroup);
  const dirs: string[] = [];
  const visit = (dir: string, relative: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(join(dir, entry.name), `${relative}/${entry.name}`);
    dirs.push(relative);
  };
  if (existsSync(root)) visit(root, cgroup);
  for (const dir of dirs) await removeCgroup(dir);
  await removeCgroup(cgroup);
}

/**
 * The site's machine-level leftovers once its agent is gone: whatever its pods still run (a
 * failed run may leave them; these are processes the caller's agent started, found by the
 * site's cgroup and runc state folder, ended by pid), its Service data plane (HAProxy and
 * dnsmasq, found by their files), mounts in its pods' folders, its pods'
 * and its own network namespaces, runc state, cgroups, claims (its CIDR, its user namespace ids).
 * `home` is the agent's home as the agent resolved it (an absolute path).
 */
export async function removeSiteNetwork(home: string, site: string): Promise<void> {
  const netns = siteNamespaceName(home, site);
  const ip = toolPath('ip');
  // Container monitors, and the site's Service data plane (HAProxy, dnsmasq), which outlive an agent that stopped.
  const marks = [runcStateRoot(netns), join(home, 'runc', site, 'service-proxy'), `/run/edgeplane-dns/${netns}/`];
  const monitors = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      return marks.some((mark) => cmdline.includes(mark));
    } catch {
      return false;
    }
  });
  for (const pid of [...processesUnder(siteCgroupParent(netns)), ...monitors.map(Number)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (monitors.length > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  const podsDir = join(home, 'runc', site, 'pods');
  await unmountAllUnder(podsDir);
  const pods = existsSync(podsDir) ? readdirSync(podsDir) : [];
  const namespaces = new Set([netns, ...pods.map((uid) => podNamespaceName(netns, uid))]);
  for (const name of readdirSync('/var/run/netns').filter((n) => namespaces.has(n))) execFileSync(ip, ['netns', 'delete', name]);
  rmSync(runcStateRoot(netns), { recursive: true, force: true });
  rmSync(`/run/edgeplane-dns/${netns}`, { recursive: true, force: true });
  await removeCgroupTree(siteCgroupParent(netns));
  await releaseSiteCidr(netns);
  await releaseUserRangeClaims(netns);
}

/** Removes the sites' common cgroup parent `/edgeplane`, when no other site on the machine uses it. */
export async function removeSitesCgroupParent(): Promise<void> {
  await removeCgroup('/edgeplane');
}
