/**
 * Polls `probe` (every `intervalMs`, default 50 ms) until it returns something other than
 * undefined, and returns that; fails after `timeoutMs` (default 20 s) naming `what` and the
 * last thing `describe` says about the state (or the probe's last error).
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number; describe?: () => Promise<string> | string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const state = options.describe === undefined ? '' : `\nstate: ${await options.describe()}`;
      const error = lastError === undefined ? '' : `\nlast error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}`;
      throw new Error(`timed out waiting for ${what}${state}${error}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
