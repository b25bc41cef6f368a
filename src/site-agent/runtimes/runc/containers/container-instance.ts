import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerFiles } from './runc-containers.js';

/** One started instance of a container: what the pod's worker keeps of it (and saves for the next agent). */
export interface ContainerInstance {
  /** runc's id: `<uid prefix>-<name>-<restart>`. */
  readonly id: string;
  readonly files: ContainerFiles;
  readonly startedAt: number;
  /** The overlay root over an image (none for host-image containers). */
  readonly root?: string;
}

/** runc ids of a pod: a short, stable prefix from its uid. */
export function podContainerId(uid: string, name: string): string {
  return `${uid.replace(/[^a-zA-Z0-9]/g, '').slice(0, 12)}-${name}`;
}

/** The folder of one container instance (`containers/<name>/<restart>`) in its pod's folder. */
export function instanceDir(podDir: string, name: string, restart: number): string {
  return join(podDir, 'containers', name, String(restart));
}

/** The files of one container instance (or the infra process: `name` "infra") inside its pod's folder. */
export function containerFiles(podDir: string, name: string): ContainerFiles {
  const base = join(podDir, 'containers', name);
  return { bundle: join(base, 'bundle'), log: join(base, 'container.log'), exitDir: join(base, 'exit'), persistDir: join(base, 'state'), socketDir: join(base, 'sockets') };
}

export async function makeContainerFolders(files: ContainerFiles): Promise<void> {
  for (const dir of [files.bundle, files.exitDir, files.persistDir, files.socketDir]) await mkdir(dir, { recursive: true, mode: 0o700 });
}
