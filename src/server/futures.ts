/**
 * Futures for the local backend: every queued operation gets a request id at once; its result is
 * fetched with retrieve_future, which long-polls (holds the request until the result is ready or a
 * bound passes) because the SDK re-polls immediately after each try_again (spec §2.3).
 */
import { randomUUID } from "node:crypto";

export type FutureResult =
  | { kind: "json"; body: unknown }
  | { kind: "proto"; bytes: Uint8Array }
  | { kind: "error"; message: string; category: "user" | "server" | "unknown" };

interface Entry {
  result?: FutureResult;
  waiters: Array<() => void>;
  createdAt: number;
}

export class FutureStore {
  private readonly entries = new Map<string, Entry>();

  /** Finished results (forward_backward outputs can be ~100 KB) are dropped oldest-first past this many futures. */
  constructor(private readonly maxEntries = 4_000) {}

  create(): string {
    const id = `req-${randomUUID()}`;
    this.entries.set(id, { waiters: [], createdAt: Date.now() });
    this.evictOld();
    return id;
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  resolve(id: string, result: FutureResult): void {
    const e = this.entries.get(id);
    if (!e || e.result) return;
    e.result = result;
    for (const w of e.waiters.splice(0)) w();
  }

  /** The result, waiting up to `waitMs` for it; undefined while still pending; null when unknown. */
  async wait(id: string, waitMs: number): Promise<FutureResult | undefined | null> {
    const e = this.entries.get(id);
    if (!e) return null;
    if (e.result || waitMs <= 0) return e.result;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, waitMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      e.waiters.push(done);
    });
    return e.result;
  }

  /** Wakes every long-poll (used on shutdown so no request is left hanging). */
  wakeAll(): void {
    for (const e of this.entries.values()) for (const w of e.waiters.splice(0)) w();
  }

  /** Keeps memory bounded: drops the oldest finished futures past the cap. */
  private evictOld(): void {
    if (this.entries.size <= this.maxEntries) return;
    for (const [id, e] of this.entries) {
      if (this.entries.size <= this.maxEntries * 0.9) break;
      if (e.result) this.entries.delete(id);
    }
  }
}
