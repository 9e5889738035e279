/**
 * A small async pool: at most `concurrency` items in flight, in input order. When `signal` aborts,
 * no new item starts; items already in flight get the same signal and are awaited. The first error
 * also stops new items, and is rethrown once the in-flight ones have settled.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  worker: (item: T, signal: AbortSignal) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  if (signal?.aborted) return;
  signal?.addEventListener("abort", onAbort, { once: true });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!stop.signal.aborted && next < items.length) {
      const item = items[next++];
      try {
        await worker(item, stop.signal);
      } catch (error) {
        // After a stop request, in-flight items may fail with an abort; that is not a failure.
        if (stop.signal.aborted && !failure) continue;
        if (!failure) failure = { error };
        stop.abort(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  if (failure) throw failure.error;
}
