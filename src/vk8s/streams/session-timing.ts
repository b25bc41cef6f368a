/** How long the stream endpoints wait for clients (kubelet's defaults where it has them). */
export interface SessionTiming {
  /** From the upgrade until the client has opened every stream it announced (kubelet: 30 s). */
  readonly streamCreationTimeoutMs: number;
  /** After the status was sent, how long the client has to close the connection itself. */
  readonly closeGraceMs: number;
}

export const DEFAULT_TIMING: SessionTiming = { streamCreationTimeoutMs: 30_000, closeGraceMs: 10_000 };

/** Resolves after `ms` unless the returned `cancel` is called first; never keeps the process alive. */
export function delay(ms: number): { readonly done: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return {
    done,
    cancel() {
      clearTimeout(timer);
      resolveDone();
    },
  };
}

/** Waits for `promise` at most `ms`; true when it settled in time. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = delay(ms);
  try {
    return await Promise.race([promise.then(() => true, () => true), timer.done.then(() => false)]);
  } finally {
    timer.cancel();
  }
}
