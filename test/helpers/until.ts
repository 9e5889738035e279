/** Polls `f` every `everyMs` until it returns a value; fails naming `what` after `ms`. */
export async function until<T>(what: string, f: () => T | undefined, ms = 30_000, everyMs = 5): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, everyMs))) {
    const v = f();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}
