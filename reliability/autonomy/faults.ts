import type { Scale } from '../area.js';
import type { EdgeSite } from './edge-site.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What a fault did: when the thing it took away came back, and anything worth a note. */
interface FaultOutcome {
  readonly restoredAt: number;
  readonly notes: readonly string[];
}

export interface Fault {
  readonly name: string;
  /** How long the thing it takes away is away, as the report says it. */
  readonly outage: string;
  /**
   * It ends the site's data plane itself (HAProxy, dnsmasq), so calls fail until the next agent
   * has started them again: counted as failed are only those later than the Ready goal after the
   * restore (what the site owes is to serve again within it, and not to fail after).
   */
  readonly stopsDataPlane?: boolean;
  run(site: EdgeSite, progress: (line: string) => void): Promise<FaultOutcome>;
}

const seconds = (ms: number): string => (ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

const agentKill: Fault = {
  name: 'agent SIGKILL and restart',
  outage: 'agent down ~0 s',
  async run(site) {
    await site.agent.stop('SIGKILL');
    const restoredAt = Date.now();
    await site.agent.start(true);
    return { restoredAt, notes: [] };
  },
};

function controlPlaneDown(ms: number): Fault {
  return {
    name: `control plane SIGKILL, down ${seconds(ms)}`,
    outage: `control plane down ${seconds(ms)}`,
    async run(site) {
      await site.killServer();
      await sleep(ms);
      await site.startServer();
      return { restoredAt: Date.now(), notes: [] };
    },
  };
}

function linkCut(ms: number): Fault {
  return {
    name: `link cut (silent drop) ${seconds(ms)}`,
    outage: `link down ${seconds(ms)}`,
    async run(site) {
      site.link.cut();
      await sleep(ms);
      site.link.restore();
      return { restoredAt: Date.now(), notes: [] };
    },
  };
}

/** The control plane killed; halfway through its outage the agent is SIGKILLed and started again, without it. */
function agentRestartWhileControlPlaneDown(ms: number): Fault {
  return {
    name: `agent restart while the control plane is down (${seconds(ms)})`,
    outage: `control plane down ${seconds(ms)}, agent restarted in it`,
    async run(site) {
      const notes: string[] = [];
      await site.killServer();
      await sleep(ms / 2);
      await site.agent.stop('SIGKILL');
      await site.agent.start(false);
      await sleep(ms / 2);
      if (!site.agent.running) {
        notes.push('the agent started without a control plane exited; started again once the control plane was back');
      }
      await site.startServer();
      const restoredAt = Date.now();
      if (!site.agent.running) await site.agent.start(false);
      return { restoredAt, notes };
    },
  };
}

/** The agent SIGKILLed with its helper processes (HAProxy, dnsmasq, socket brokers), as a machine's restart would; containers stay under conmon. */
function machineRestart(ms: number): Fault {
  return {
    name: 'machine-like restart of the agent (its processes killed)',
    outage: `agent and its processes down ${seconds(ms)}`,
    stopsDataPlane: true,
    async run(site, progress) {
      await site.agent.stop('SIGKILL');
      const killed = site.killAgentHelpers();
      progress(`killed the agent and ${killed.length} of its processes (${[...new Set(killed)].join(', ')})`);
      await sleep(ms);
      const restoredAt = Date.now();
      await site.agent.start(true);
      return { restoredAt, notes: [`killed with the agent: ${killed.length} processes (${[...new Set(killed)].sort().join(', ') || 'none'})`] };
    },
  };
}

export interface AutonomyPlan {
  /** The server's lease (undefined: its default, 40 s) and the agent's heartbeat period. */
  readonly graceSeconds: number | undefined;
  readonly heartbeatSeconds: number;
  /** How long each fault's figures are watched after what it took away is back (longer than the lease, so a late expiry shows). */
  readonly observeMs: number;
  /** How long the site may take to serve again after that before an agent restart makes it (so the next fault starts from a serving site). */
  readonly settleMs: number;
  readonly faults: readonly Fault[];
}

/**
 * The faults in a row. Long: the durations at the server's and agent's defaults (lease
 * 40 s, heartbeat 10 s), about 36 minutes. Short (npm test): a 5 s lease, 1 s heartbeats and
 * outages of 8 s, longer than the lease, one of each kind, under 3 minutes.
 */
export const PLANS: Record<Scale, AutonomyPlan> = {
  short: {
    graceSeconds: 5,
    heartbeatSeconds: 1,
    observeMs: 12_000,
    settleMs: 3_000,
    faults: [agentKill, controlPlaneDown(8_000), linkCut(8_000), agentRestartWhileControlPlaneDown(8_000), machineRestart(2_000)],
  },
  long: {
    graceSeconds: undefined,
    heartbeatSeconds: 10,
    observeMs: 45_000,
    settleMs: 10_000,
    faults: [
      agentKill,
      controlPlaneDown(120_000),
      controlPlaneDown(600_000),
      linkCut(25_000),
      linkCut(120_000),
      linkCut(600_000),
      agentRestartWhileControlPlaneDown(90_000),
      machineRestart(5_000),
    ],
  },
};
