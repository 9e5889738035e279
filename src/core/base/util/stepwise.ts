/**
 * Long synchronous work written as a generator that yields once per item, so one loop serves a
 * caller that wants the result at once and a long phase that must stop at the first SIGTERM: a
 * signal handler only runs when the event loop gets a turn, which a plain loop never gives it.
 */

/** A piece of work that yields after each item and returns its result. */
export type Stepwise<T> = Generator<void, T, void>;

/** Runs the work to its end without a break (what synchronous callers use). */
export function runToEnd<T>(work: Stepwise<T>): T {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
  }
}

/** How long the work runs before it gives the event loop a turn (a stop request waits at most this plus one item). */
const SLICE_MS = 50;

/**
 * Runs the work, giving the event loop a turn every SLICE_MS so a stop request can arrive, and
 * stops after the item in hand once `signal` aborts (throwing its reason; the work's result is dropped).
 */
export async function runInterruptibly<T>(work: Stepwise<T>, signal?: AbortSignal): Promise<T> {
  let sliceStart = Date.now();
  for (;;) {
    signal?.throwIfAborted();
    const r = work.next();
    if (r.done) return r.value;
    if (Date.now() - sliceStart >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = Date.now();
    }
  }
}
