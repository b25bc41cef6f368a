import { type FSWatcher, watch } from 'node:fs';
import type { ContainerInstance } from '../containers/index.js';

/**
 * What wakes a pod's worker between relists (kubelet's PLEG events): the exit file conmon
 * writes for each running container instance, and the injected sidecar's state file. A watch
 * that cannot be made is left to the relist.
 */
export class ContainerWatches {
  private readonly exits = new Map<string, FSWatcher>();
  private sidecar: FSWatcher | undefined;

  constructor(private readonly changed: () => void) {}

  watchExit(name: string, instance: ContainerInstance): void {
    this.exits.get(name)?.close();
    const watcher = this.open(instance.files.exitDir);
    if (watcher === undefined) this.exits.delete(name);
    else this.exits.set(name, watcher);
  }

  unwatchExit(name: string): void {
    this.exits.get(name)?.close();
    this.exits.delete(name);
  }

  /** Watches the sidecar's folder (its state file), once. */
  watchSidecar(runDir: string): void {
    this.sidecar ??= this.open(runDir);
  }

  close(): void {
    for (const watcher of this.exits.values()) watcher.close();
    this.exits.clear();
    this.sidecar?.close();
    this.sidecar = undefined;
  }

  private open(dir: string): FSWatcher | undefined {
    try {
      return watch(dir, () => this.changed());
    } catch {
      return undefined;
    }
  }
}
