import type { ContainerRecord, PodRecord } from '../../kubelet/index.js';
import { containerFiles, type ContainerFiles, type ContainerStdio } from '../containers/index.js';

/** What the pod streams need of one pod of a runc site, read from its worker when a stream starts. */
export interface PodStreamView {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly podDir: string;
  /** The pod's containers as kubelet reports them (current state, last termination, ids). */
  readonly record: PodRecord;
  /** The containers running now: their runc id, files and stdio (stdin, stdinOnce, tty from the spec), by name. */
  readonly running: ReadonlyMap<string, { readonly id: string; readonly files: ContainerFiles; readonly stdio: ContainerStdio }>;
  /** The sandbox, once made: its infra container's id (the CRI sandbox id) and network namespace. */
  readonly sandbox?: { readonly infraId: string; readonly netnsPath: string };
}

/** A container instance whose log is read: its runc id and files. */
export interface LogInstance {
  readonly id: string;
  readonly files: ContainerFiles;
}

/** A stream request the pod's state refuses, with kubelet's words and HTTP code. */
export interface Refusal {
  readonly code: number;
  readonly message: string;
}

function findContainer(record: PodRecord, name: string): ContainerRecord | undefined {
  return record.containers.find((c) => c.name === name) ?? record.initContainers.find((c) => c.name === name);
}

/** The instance folder of a `runc://<uid prefix>-<name>-<restart>` container ID (`containers/<name>/<restart>`). */
function instanceOf(podDir: string, name: string, containerID: string): LogInstance | undefined {
  const id = containerID.replace(/^runc:\/\//, '');
  const restart = /-(\d+)$/.exec(id)?.[1];
  if (restart === undefined || !id.endsWith(`-${name}-${restart}`)) return undefined;
  return { id, files: containerFiles(podDir, `${name}/${restart}`) };
}

/**
 * Which instance's log `kubectl logs` reads, as kubelet's `validateContainerLogStatus`: with
 * `previous` the last terminated one; otherwise the running one, else the terminated one,
 * else the last terminated one; a container still waiting is refused with its reason.
 * kubelet answers these with 400.
 */
export function logInstance(view: PodStreamView, container: string, previous: boolean): LogInstance | Refusal {
  const record = findContainer(view.record, container);
  const where = `container ${JSON.stringify(container)} in pod ${JSON.stringify(view.name)}`;
  if (record === undefined) return { code: 400, message: `${where} is not available` };
  const last = record.lastTermination;
  const current = record.current;
  let containerID: string | undefined;
  if (previous) {
    if (last === undefined || last.containerID === '') return { code: 400, message: `previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(view.name)} not found` };
    containerID = last.containerID;
  } else if (current.kind === 'running') containerID = current.containerID;
  else if (current.kind === 'terminated') containerID = current.termination.containerID || last?.containerID;
  else if (last !== undefined) containerID = last.containerID;
  else return { code: 400, message: `${where} is waiting to start: ${current.reason}` };
  if (containerID === undefined || containerID === '') return { code: 400, message: `${where} is terminated` };
  return instanceOf(view.podDir, container, containerID) ?? { code: 400, message: `${where} is terminated` };
}
