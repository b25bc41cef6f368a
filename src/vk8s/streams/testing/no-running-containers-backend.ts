import type { Duplex, Readable } from 'node:stream';
import { StreamError } from '../stream-error.js';
import type { ExitResult, PodStreamBackend, PodTarget, StreamKind } from '../types.js';

/**
 * The backend while no site runs the pod: every stream is refused the way kubelet refuses
 * one for a container that is not running — exec/attach `container not found ("c")`,
 * port-forward `pod not found ("p_ns")` (kubectl: `error: unable to upgrade connection: …`),
 * logs `container "c" in pod "p" is waiting to start: ContainerCreating` (400).
 */
export class NoRunningContainersBackend implements PodStreamBackend {
  admit(target: PodTarget, kind: StreamKind): Promise<void> {
    return Promise.reject(refusal(target, kind));
  }

  exec(target: PodTarget): Promise<ExitResult> {
    return Promise.reject(refusal(target, 'exec'));
  }

  attach(target: PodTarget): Promise<ExitResult> {
    return Promise.reject(refusal(target, 'attach'));
  }

  portForward(target: PodTarget): Promise<Duplex> {
    return Promise.reject(refusal(target, 'portforward'));
  }

  logs(target: PodTarget): Promise<Readable> {
    return Promise.reject(StreamError.node(400, `container ${JSON.stringify(target.container)} in pod ${JSON.stringify(target.pod)} is waiting to start: ContainerCreating`));
  }
}

function refusal(target: PodTarget, kind: StreamKind): StreamError {
  return kind === 'portforward' ? StreamError.podNotFound(target.pod, target.namespace) : StreamError.containerNotFound(target.container);
}
