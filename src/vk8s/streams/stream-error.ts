import type { StatusError } from '../../apimachinery/errors/status-error.js';

/**
 * A refusal from a pod stream endpoint, in one of the two shapes clients see from a real
 * cluster:
 * - `apiserver`: a `metav1.Status` answered as JSON (kubectl prints `Error from server (<Reason>): <message>`);
 * - `node`: kubelet's own answer, proxied as plain text with its HTTP code (kubectl prints
 *   `error: unable to upgrade connection: <text>`).
 * After an upgrade both become the failure written on the error channel (exec, attach) or the
 * error text of a forwarded port.
 */
export class StreamError extends Error {
  override readonly name = 'StreamError';
  private constructor(
    readonly origin: 'apiserver' | 'node',
    /** The HTTP code of the answer before an upgrade. */
    readonly code: number,
    message: string,
    readonly status?: StatusError,
  ) {
    super(message);
  }

  /** The API server refuses with a Status. */
  static status(error: StatusError): StreamError {
    return new StreamError('apiserver', error.code, error.message, error);
  }

  /** The node refuses with text (kubelet's `WriteError`: 404 for NotFound, else 500; 400 for bad requests). */
  static node(code: number, text: string): StreamError {
    return new StreamError('node', code, text);
  }

  /** kubelet, when the container is not running: `container not found ("c")`. */
  static containerNotFound(container: string): StreamError {
    return StreamError.node(500, `container not found (${JSON.stringify(container)})`);
  }

  /** kubelet, when the pod has no sandbox on the node: `pod not found ("name_namespace")`. */
  static podNotFound(pod: string, namespace: string): StreamError {
    return StreamError.node(500, `pod not found (${JSON.stringify(`${pod}_${namespace}`)})`);
  }
}
