import { readFileSync } from 'node:fs';

const CAP_SYS_RESOURCE = 24n;

/**
 * The lowest OOM score adjustment this process may give its containers: any, with
 * CAP_SYS_RESOURCE (as kubelet has); otherwise no lower than its own (the kernel refuses to
 * lower it, and runc fails to start the container). Machines like these run without it, so
 * Guaranteed pods and sandboxes get the agent's own adjustment instead of −997/−998.
 */
export function oomScoreFloor(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  if (effective !== undefined && (BigInt(`0x${effective}`) >> CAP_SYS_RESOURCE) & 1n) return -1000;
  return Number.parseInt(readFileSync('/proc/self/oom_score_adj', 'utf8').trim(), 10);
}
