import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/** A running V8 CPU profile of this process; `stop` writes `<dir>/<label>-<time>.cpuprofile` and returns its path. */
export interface InProcessProfiler {
  stop(dir: string, label: string): Promise<string>;
}

/** Starts the V8 CPU profiler of this process (a benchmark's in-process control plane), through node:inspector. */
export async function startInProcessProfiler(): Promise<InProcessProfiler> {
  const session = new Session();
  session.connect();
  const post = (method: string): Promise<unknown> => new Promise((resolve, reject) => session.post(method, (error, result) => (error === null ? resolve(result) : reject(error))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    stop: async (dir, label) => {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${label}-${Date.now()}.cpuprofile`);
      writeFileSync(path, JSON.stringify(profile));
      return path;
    },
  };
}
