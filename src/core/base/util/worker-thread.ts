/**
 * Worker threads whose entry is either bundled next to the caller (dist/*.js, in the extension and
 * the CLI) or the TypeScript source beside it (tests, benchmarks, tsx).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";

/** The first of `names` that exists in `dir`, as a path, or undefined. */
export function findWorkerScript(dir: string, names: readonly string[]): string | undefined {
  return names.map((n) => join(dir, n)).find((p) => existsSync(p));
}

/** Like findWorkerScript, for a worker the caller cannot do without: a missing one says which files and what to do. */
export function requireWorkerScript(dir: string, names: readonly string[], what: string): string {
  const found = findWorkerScript(dir, names);
  if (!found)
    throw new Error(
      `${what} is missing (looked for ${names.map((n) => join(dir, n)).join(", ")}); rebuild with npm run build`,
    );
  return found;
}

/** A bundled .js starts directly; a .ts source goes through tsx's require hook. */
export function startWorkerThread(script: string, workerData?: unknown): Worker {
  if (!script.endsWith(".ts")) return new Worker(script, { workerData });
  return new Worker(`require("tsx/cjs"); require(${JSON.stringify(script)});`, { eval: true, workerData });
}
