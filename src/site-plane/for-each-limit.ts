/**
 * Runs `task` for every item with at most `limit` running at once; resolves when all have
 * finished, rejecting with the first failure (after the running ones finish). Concurrent
 * store writes let the store commit them together (group commit, etcd pipelining).
 */
export async function forEachLimit<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        await task(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure !== undefined) throw failure.error instanceof Error ? failure.error : new Error(String(failure.error));
}
