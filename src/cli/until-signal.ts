import type { LevelLogger } from '../observability/line-logger.js';

/**
 * Resolves once `stop` has run after the first SIGINT or SIGTERM (a failed stop is logged and
 * sets exit code 1); a second signal exits at once with 1. For long-running commands.
 */
export function untilSignal(stop: () => Promise<void>, logger: LevelLogger): Promise<void> {
  return new Promise((done) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (++signals > 1) {
        logger.warn({ signal }, 'second signal: exiting at once');
        process.exit(1);
      }
      logger.info({ signal }, 'signal received; stopping');
      stop().then(done, (error: unknown) => {
        logger.error({ err: error }, 'stopping failed');
        process.exitCode = 1;
        done();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
