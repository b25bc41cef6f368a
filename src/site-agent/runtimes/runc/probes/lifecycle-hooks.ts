import type { Container, Handler } from '../../../../api/pod-spec-types.js';
import type { Timers } from '../../../../common/timers.js';
import type { PodRecord } from '../../kubelet/index.js';
import { containerPort, hostPort, httpGet, type Dial, type ExecInContainer } from './prober.js';

/** What a container's lifecycle hook runs against. */
export interface HookTarget {
  readonly podIP: string;
  readonly container: Container;
  /** `<pod>_<namespace>(<uid>)`, as kubelet names the pod in its messages. */
  readonly pod: string;
  readonly dial: Dial;
  readonly exec: ExecInContainer;
  readonly timers: Timers;
}

/** Go's net/http client's User-Agent, which kubelet's hook runner sends. */
const HOOK_USER_AGENT = 'Go-http-client/1.1';

/** The hook target of a running container of a pod: `runner` dials from the site's network and execs in that container. */
export function hookTarget(pod: Pick<PodRecord, 'name' | 'namespace' | 'uid' | 'podIP'>, container: Container, runner: Pick<HookTarget, 'dial' | 'exec' | 'timers'>): HookTarget {
  return { podIP: pod.podIP ?? '', container, pod: `${pod.name}_${pod.namespace}(${pod.uid})`, ...runner };
}

/**
 * Runs a postStart or preStop handler as kubelet's HandlerRunner (1.17) does, within
 * `timeoutMs`: `exec` runs the command in the container and fails on a non-zero exit;
 * `httpGet` GETs `http://<host, else the pod IP>:<port>/<path>` (kubelet 1.17 ignores the
 * scheme and headers of a hook) and fails only when no answer comes — any status is
 * success. Undefined on success, else kubelet's message for the FailedPostStartHook /
 * FailedPreStopHook Event.
 */
export async function runLifecycleHook(handler: Handler, timeoutMs: number, target: HookTarget): Promise<string | undefined> {
  const name = target.container.name ?? '';
  if (handler.exec != null) {
    const command = handler.exec.command ?? [];
    const failed = (error: string, output: string): string => `Exec lifecycle hook (${goList(command)}) for Container "${name}" in Pod "${target.pod}" failed - error: ${error}, message: ${JSON.stringify(output)}`;
    try {
      const result = await target.exec(command, Math.max(1, timeoutMs));
      return result.exitCode === 0 ? undefined : failed(`command '${command.join(' ')}' exited with ${result.exitCode}: ${result.output}`, result.output);
    } catch (error) {
      return failed(error instanceof Error ? error.message : String(error), '');
    }
  }
  if (handler.httpGet != null) {
    const { httpGet: action } = handler;
    const path = action.path ?? '';
    let url = `http://${action.host || target.podIP}:?/${path.replace(/^\//, '')}`;
    try {
      const port = containerPort(action.port, target.container);
      url = `http://${hostPort(action.host || target.podIP, port)}/${path.replace(/^\//, '')}`;
      await httpGet(new URL(url), [{ name: 'User-Agent', value: HOOK_USER_AGENT }], target.timers.now() + Math.max(1, timeoutMs), target);
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return `Http lifecycle hook (${path}) for Container "${name}" in Pod "${target.pod}" failed - error: Get ${url}: ${message}, message: ""`;
    }
  }
  return `Cannot run handler: invalid handler: ${JSON.stringify(handler)}`;
}

/** A list as Go's %v prints it: `[sh -c exit 1]`. */
function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}
