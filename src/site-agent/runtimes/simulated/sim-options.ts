/** How the simulated runtime behaves; every delay in milliseconds of (injectable) time. */
export interface SimOptions {
  /** ContainerCreating → containers running (`--sim-start-ms`, default 1000). */
  readonly startMs: number;
  /** Running → ready, for every container; a readiness probe adds its initialDelaySeconds (`--sim-ready-ms`, default 0). */
  readonly readyMs: number;
  /** Probability that a container start crashes (`--sim-failure-rate`, 0–1, default 0). */
  readonly failureRate: number;
  /** How long a crashing start runs before it exits with code 1 (default 1000). */
  readonly crashAfterMs: number;
  /** Run time of pods with restartPolicy Never/OnFailure without a run-seconds annotation (`--sim-run-ms`, default 2000). */
  readonly runMs: number;
  /** Terminating → stopped, at most the deletion grace period (`--sim-stop-ms`, default 500). */
  readonly stopMs: number;
  /**
   * The text of each generated log line (`--sim-log-template`), with `{pod}`, `{namespace}`,
   * `{container}`, `{seq}` (1, 2, … from each container start), `{restart}` (the container's
   * restart count) and `{time}` (the line's RFC 3339 time) replaced.
   */
  readonly logTemplate: string;
  /** Lines a container writes as it starts: what a log request finds at once (`--sim-log-lines`, default 10). */
  readonly logLines: number;
  /** Lines a running container writes each second after those, which `logs -f` follows (`--sim-log-lines-per-second`, default 1; 0: none). */
  readonly logLinesPerSecond: number;
}

export const DEFAULT_SIM_OPTIONS: SimOptions = {
  startMs: 1000,
  readyMs: 0,
  failureRate: 0,
  crashAfterMs: 1000,
  runMs: 2000,
  stopMs: 500,
  logTemplate: '{time} INFO {pod}/{container}: simulated log line {seq}',
  logLines: 10,
  logLinesPerSecond: 1,
};

/**
 * Pod annotations that steer one simulated pod:
 * - `sim.edgeplane.io/run-seconds`: its containers exit after this many seconds (decimal) of
 *   running, for any restartPolicy (Always restarts them with back-off, as kubelet).
 * - `sim.edgeplane.io/exit-code`: the code they exit with (0–255, default 0); non-zero fails
 *   the pod (Never), restarts it with back-off (OnFailure, Always).
 */
export const RUN_SECONDS_ANNOTATION = 'sim.edgeplane.io/run-seconds';
export const EXIT_CODE_ANNOTATION = 'sim.edgeplane.io/exit-code';
