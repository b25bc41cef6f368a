import type { Registry } from 'prom-client';
import { startGarbageCollector } from '../garbage-collector/garbage-collector.js';
import type { ControllerStarter } from './controller-context.js';

/** The metric names startGarbageCollector registers (removed when a term ends, so the next term can register them again). */
const GC_METRICS = [
  'edgeplane_vk8s_garbage_collector_graph_objects',
  'edgeplane_vk8s_garbage_collector_queue_depth',
  'edgeplane_vk8s_garbage_collector_actions_total',
  'edgeplane_vk8s_garbage_collector_reconciles_total',
];

/**
 * The garbage collector (src/controllers/garbage-collector, unchanged) as a controller of the
 * manager: started when this process becomes the leader, stopped when it stops leading. It
 * keeps its own owner graph over every resource's watch cache (not the shared informers).
 */
export function garbageCollectorController(options: { metrics?: Registry; workers?: number; foregroundRecheckMs?: number } = {}): ControllerStarter {
  return {
    name: 'garbage-collector',
    start: (context) => {
      const collector = startGarbageCollector({
        storage: context.storage,
        logger: context.logger.child({ controller: 'garbage-collector' }),
        ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
        ...(options.workers === undefined ? {} : { workers: options.workers }),
        ...(options.foregroundRecheckMs === undefined ? {} : { foregroundRecheckMs: options.foregroundRecheckMs }),
      });
      return {
        stop: async () => {
          await collector.stop();
          for (const name of GC_METRICS) options.metrics?.removeSingleMetric(name);
        },
      };
    },
  };
}
