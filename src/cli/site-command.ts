import { untilSignal } from './until-signal.js';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Quantity } from '../apimachinery/quantity/quantity.js';
import { parseListenAddress, type ListenAddress } from '../common/listen-address.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat } from '../observability/logger.js';
import { DEFAULT_SIM_OPTIONS } from '../site-agent/runtimes/simulated/sim-options.js';
import { checkSiteName, parseLabels, siteSpecsFor } from '../site-agent/site-specs.js';
import type { SiteType } from '../site-api/site-model.js';
import { addConnectionOptions, ApiClient, type ConnectionOptions } from './api-client.js';
import { addRuncLimitOptions, runcLimits, type RuncLimitFlags } from './runc-limit-options.js';
import { addRuntimeProgramOptions, runtimeProgramPaths, type RuntimeProgramFlags } from './runtime-program-options.js';

interface SiteOptions extends RuntimeProgramFlags, RuncLimitFlags {
  name?: string;
  type?: SiteType;
  labels: Record<string, string>;
  nodes: number;
  cpu: string;
  memory: string;
  runtime: 'simulated' | 'runc';
  hostImage: boolean;
  podCidr?: string;
  quotaCpu?: string;
  quotaMemory?: string;
  server?: string;
  registrationToken?: string;
  home: string;
  simulateSites?: number;
  heartbeatSeconds: number;
  simStartMs: number;
  simReadyMs: number;
  simFailureRate: number;
  simRunMs: number;
  simStopMs: number;
  simLogTemplate: string;
  simLogLines: number;
  simLogLinesPerSecond: number;
  logLevel: string;
  logFormat: LogFormat;
  metricsAddress?: ListenAddress;
}

function argument<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

const wholeNumber = (min: number) =>
  argument((value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`must be a whole number, at least ${min}`);
    return n;
  });

const quantity = argument((value) => {
  Quantity.parse(value);
  return value;
});

const linesPerSecond = argument((value) => {
  const n = Number(value);
  if (!(n >= 0 && n <= 100_000)) throw new Error('must be a number of lines a second, from 0 to 100000');
  return n;
});

const rate = argument((value) => {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new Error('must be a probability between 0 and 1');
  return n;
});

/** `30`, `90s`, `30m`, `24h`, `7d` → seconds. */
function parseTtl(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (match === null) throw new Error(`"${value}" is not a duration like 3600, 30m, 24h or 7d`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * unit;
}

/** `edgeplane site token`: a registration token for new sites of the caller's tenant. */
function siteTokenCommand(): Command {
  return addConnectionOptions(new Command('token'))
    .description('Print a registration token for new sites (carries the server URL and the CA pin).')
    .addOption(new Option('--type <type>', 'the type of site it registers').choices(['CUSTOMER_EDGE', 'REGIONAL_EDGE']).default('CUSTOMER_EDGE'))
    .addOption(new Option('--ttl <duration>', 'how long it stays valid (seconds, or 30m, 24h, 7d)').default(86400, '24h').argParser(argument(parseTtl)))
    .addOption(new Option('--max-uses <n>', 'how many registrations it may make (default: any number until it expires)').argParser(wholeNumber(1)))
    .addOption(new Option('--for-site <name>', 'mint it for this existing site: the one way to move the site to another agent (a replaced machine)'))
    .addHelpText(
      'after',
      `
A registration never moves an existing site, or an agent's name, to another agent: that is 409.
A site whose agent is gone for good (its machine replaced, its disk lost) moves with a token
minted for it (--for-site); the move is logged with the token and who issued it.`,
    )
    .action(async (o: ConnectionOptions & { type: SiteType; ttl: number; maxUses?: number; forSite?: string }) => {
      const limits = { ...(o.maxUses === undefined ? {} : { max_uses: o.maxUses }), ...(o.forSite === undefined ? {} : { site: o.forSite }) };
      const body = { type: o.type, ttl_seconds: o.ttl, ...limits };
      const issued = await new ApiClient(o).call<{ token: string; expires?: string }>('POST', '/api/sites/v1/tokens', body);
      process.stdout.write(issued.token + '\n');
      if (issued.expires !== undefined) process.stderr.write(`expires ${issued.expires}\n`);
    });
}

/** `edgeplane site`: registers a site (or many simulated ones) and runs its agent until a signal. */
export function siteCommand(): Command {
  const site = new Command('site')
    .description('Run a site agent: register the site with a registration token, then run the pods the platform binds to it.')
    .enablePositionalOptions()
    .addOption(new Option('--name <name>', 'site name (with --simulate-sites: the prefix of <name>-<i>; also the agent name)'))
    .addOption(new Option('--type <type>', 'site type').choices(['CUSTOMER_EDGE', 'REGIONAL_EDGE']))
    .addOption(new Option('--labels <k=v,...>', 'site labels').default({}, 'none').argParser(argument(parseLabels)))
    .addOption(new Option('--nodes <n>', 'nodes per site').default(3).argParser(wholeNumber(1)))
    .addOption(new Option('--cpu <quantity>', 'CPU capacity of each node').default('8').argParser(quantity))
    .addOption(new Option('--memory <quantity>', 'memory capacity of each node').default('16Gi').argParser(quantity))
    .addOption(new Option('--runtime <runtime>', 'what runs the pods').choices(['simulated', 'runc']).default('simulated'))
    .addOption(new Option('--host-image', "runc: run pods whose image the site does not hold on a read-only view of the host's programs (imageID host://)").default(false))
    .addOption(new Option('--pod-cidr <cidr>', 'runc: the site\'s pod network (default: a free 10.244.n.0/24 of this machine)'))
    .addOption(new Option('--quota-cpu <quantity>', 'regional edge: CPU each virtual cluster may use on the site').argParser(quantity))
    .addOption(new Option('--quota-memory <quantity>', 'regional edge: memory each virtual cluster may use on the site').argParser(quantity))
    .addOption(new Option('--server <url>', 'control plane URL (default: the one in the token)').env('EDGEPLANE_SERVER'))
    .addOption(new Option('--registration-token <token>', 'from `edgeplane site token` (not needed once registered)').env('EDGEPLANE_REGISTRATION_TOKEN'))
    .addOption(new Option('--home <dir>', 'where the agent keeps its key, certificate and CA').env('EDGEPLANE_SITE_HOME').default('.edgeplane-site'))
    .addOption(new Option('--simulate-sites <n>', 'register and run n sites <name>-<i> in this process').argParser(wholeNumber(1)))
    .addOption(new Option('--heartbeat-seconds <s>', 'seconds between heartbeats').default(10).argParser(wholeNumber(1)))
    .addOption(new Option('--sim-start-ms <ms>', 'simulated: ContainerCreating → Running').default(1000).argParser(wholeNumber(0)))
    .addOption(new Option('--sim-ready-ms <ms>', 'simulated: Running → Ready (plus readiness probes\' initialDelaySeconds)').default(0).argParser(wholeNumber(0)))
    .addOption(new Option('--sim-failure-rate <p>', 'simulated: probability a container start crashes').default(0).argParser(rate))
    .addOption(new Option('--sim-run-ms <ms>', 'simulated: run time of restartPolicy Never/OnFailure pods').default(2000).argParser(wholeNumber(0)))
    .addOption(new Option('--sim-stop-ms <ms>', 'simulated: Terminating → stopped (at most the grace period)').default(500).argParser(wholeNumber(0)))
    .addOption(new Option('--sim-log-template <text>', 'simulated: each log line, with {pod} {namespace} {container} {seq} {restart} {time} replaced').default(DEFAULT_SIM_OPTIONS.logTemplate))
    .addOption(new Option('--sim-log-lines <n>', 'simulated: log lines a container writes as it starts').default(DEFAULT_SIM_OPTIONS.logLines).argParser(wholeNumber(0)))
    .addOption(new Option('--sim-log-lines-per-second <n>', 'simulated: log lines a running container writes each second after those (what logs -f follows)').default(DEFAULT_SIM_OPTIONS.logLinesPerSecond).argParser(linesPerSecond))
    .addOption(new Option('--metrics-address <host:port>', 'serve the agent\'s Prometheus metrics (GET /metrics, plain HTTP) there, e.g. 127.0.0.1:9470').env('EDGEPLANE_METRICS_ADDRESS').argParser(argument(parseListenAddress)))
    .addOption(new Option('--log-level <level>', 'least severe level logged').choices(LOG_LEVELS).env('EDGEPLANE_LOG_LEVEL').default('info'))
    .addOption(new Option('--log-format <format>', 'auto: readable lines on a terminal, JSON otherwise').choices(LOG_FORMATS).env('EDGEPLANE_LOG_FORMAT').default('auto'));
  addRuncLimitOptions(addRuntimeProgramOptions(site))
    .addHelpText(
      'after',
      `
Simulated pods follow kubelet: Pending → ContainerCreating → Running → Ready. Annotations
sim.edgeplane.io/run-seconds and sim.edgeplane.io/exit-code make a pod's containers exit
after that long with that code (restarted with back-off, or Succeeded/Failed per restartPolicy).
Their logs are generated (--sim-log-…); exec, attach and port-forward are refused.

runc pods' disk is measured every --ephemeral-storage-check-seconds (a du of each container's
folder, emptyDir and configMap volume): a pod over an emptyDir's sizeLimit or its
limits.ephemeral-storage is evicted as kubelet does (phase Failed, reason Evicted, a Warning
Event), and so is the pod kubelet would pick when the site's pods together pass
--site-ephemeral-storage. A container's log files hold at most twice
--container-log-max-size × --container-log-max-files, even under a flood.

The agent runs until SIGINT or SIGTERM, then sends waiting status reports and exits.`,
    )
    .action(async (o: SiteOptions) => {
      if (o.runtime !== 'runc' && (o.hostImage || o.podCidr !== undefined || o.siteEphemeralStorage !== undefined)) throw new Error('--host-image, --pod-cidr and --site-ephemeral-storage apply to --runtime runc');
      if (o.name === undefined || o.type === undefined) throw new Error('site needs --name and --type (run `edgeplane site --help`)');
      checkSiteName(o.name);
      if ((o.quotaCpu === undefined) !== (o.quotaMemory === undefined)) throw new Error('give --quota-cpu and --quota-memory together');
      if (o.quotaCpu !== undefined && o.type !== 'REGIONAL_EDGE') throw new Error('--quota-cpu/--quota-memory apply to REGIONAL_EDGE sites only');
      const sites = siteSpecsFor({
        name: o.name,
        type: o.type,
        labels: o.labels,
        nodes: o.nodes,
        cpu: o.cpu,
        memory: o.memory,
        ...(o.quotaCpu === undefined || o.quotaMemory === undefined ? {} : { quota: { cpu: o.quotaCpu, memory: o.quotaMemory } }),
        ...(o.simulateSites === undefined ? {} : { simulateSites: o.simulateSites }),
      });
      sites.forEach((s) => checkSiteName(s.name));
      const logger = createLogger({ level: o.logLevel, name: 'edgeplane-site', format: o.logFormat });
      const { startSiteAgent } = await import('../site-agent/site-agent.js'); // only this command needs the agent
      const agent = await startSiteAgent({
        home: resolve(o.home),
        agent: o.name,
        sites,
        heartbeatSeconds: o.heartbeatSeconds,
        runtime: o.runtime,
        ...(o.runtime === 'runc' ? { runc: { hostImage: o.hostImage, programs: runtimeProgramPaths(o), ...runcLimits(o), ...(o.podCidr === undefined ? {} : { podCidr: o.podCidr }) } } : {}),
        sim: { startMs: o.simStartMs, readyMs: o.simReadyMs, failureRate: o.simFailureRate, runMs: o.simRunMs, stopMs: o.simStopMs, logTemplate: o.simLogTemplate, logLines: o.simLogLines, logLinesPerSecond: o.simLogLinesPerSecond },
        logger,
        ...(o.registrationToken === undefined ? {} : { token: o.registrationToken }),
        ...(o.metricsAddress === undefined ? {} : { metricsAddress: o.metricsAddress }),
        ...(o.server === undefined ? {} : { server: o.server }),
        onProgress: (done, total) => {
          if (total > 1) process.stderr.write(`registered ${done}/${total} sites\n`);
        },
      });
      await untilSignal(() => agent.close(), logger);
    });
  site.addCommand(siteTokenCommand());
  return site;
}
