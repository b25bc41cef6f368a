import { Counter, Gauge, type Registry } from 'prom-client';

/** The controller manager's metrics, registered once per process (leadership terms come and go). */
export interface ControllerMetrics {
  reconciled(controller: string, result: 'success' | 'error'): void;
  /** Reports a queue's depth under `controller` while it runs; call the returned function when it stops. */
  watchQueue(controller: string, depth: () => number): () => void;
  setLeader(leading: boolean): void;
}

export function controllerMetrics(registry: Registry | undefined): ControllerMetrics {
  const queues = new Map<string, () => number>();
  if (registry === undefined) {
    return { reconciled: () => {}, watchQueue: () => () => {}, setLeader: () => {} };
  }
  const reconciles = new Counter({ name: 'edgeplane_controller_reconciles_total', help: 'Controller reconciles, by controller and result (success or error).', labelNames: ['controller', 'result'], registers: [registry] });
  new Gauge({
    name: 'edgeplane_controller_queue_depth',
    help: 'Keys waiting for a controller worker, by controller.',
    labelNames: ['controller'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [controller, depth] of queues) this.set({ controller }, depth());
    },
  });
  const leader = new Gauge({ name: 'edgeplane_controller_manager_leader', help: 'Whether this process leads the controllers (1) or waits (0).', registers: [registry] });
  leader.set(0);
  return {
    reconciled: (controller, result) => reconciles.inc({ controller, result }),
    watchQueue: (controller, depth) => {
      queues.set(controller, depth);
      return () => queues.delete(controller);
    },
    setLeader: (leading) => leader.set(leading ? 1 : 0),
  };
}
