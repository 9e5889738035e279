/**
 * Real data lives in ../shared/data next to the project on CI and developer machines, never in the
 * repository. A user's clone has none: there, tests that need it skip with a one-line reason.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * `AGENT_LAB_SHARED_DATA` points elsewhere (CI points it at an empty folder to run the suite as a
 * user's clone would, where ../shared does not exist).
 */
export const SHARED_DATA = process.env.AGENT_LAB_SHARED_DATA
  ? resolve(process.env.AGENT_LAB_SHARED_DATA)
  : resolve(__dirname, "..", "..", "..", "shared", "data");

/** Absolute path of a file under ../shared/data, or undefined when it is not there. */
export function sharedDataPath(...parts: string[]): string | undefined {
  const path = join(SHARED_DATA, ...parts);
  return existsSync(path) ? path : undefined;
}

/** Call inside a mocha `before`/`it`: skips the suite/test when the shared data is missing. */
export function requireSharedData(ctx: Mocha.Context, ...parts: string[]): string {
  const path = sharedDataPath(...parts);
  if (!path) {
    console.log(`      skipped: ../shared/data/${parts.join("/")} is not present (real-data test)`);
    ctx.skip();
  }
  return path!;
}
