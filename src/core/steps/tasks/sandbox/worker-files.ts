/**
 * Where the sandbox worker and Pyodide's files are at run time. The built CLI and extension carry
 * them in dist/ (scripts/build.mjs, reading bundle.json, writes dist/sandbox-worker.js and copies
 * Pyodide's interpreter files into dist/pyodide/); running from source (tests, tsx) bundles the
 * worker once into the project's git-ignored .cache/ with esbuild, a dev dependency, and reads
 * Pyodide from node_modules.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UserError } from "../../../base/errors";
import bundle from "./bundle.json";

export const WORKER_BUNDLE = bundle.workerBundle;
export const PYODIDE_DIR = bundle.pyodideDir;
/** ws loads these native speed-ups when present; the worker has no use for them (and no network). */
export const WORKER_EXTERNALS: string[] = bundle.externals;

/** The repository root, from this module's place in src/ (only the from-source path uses it). */
const PROJECT_ROOT = join(__dirname, "..", "..", "..", "..", "..");

export interface WorkerFiles {
  script: string;
  pyodideDir: string;
}

export function workerFiles(): WorkerFiles {
  return { script: workerScript(), pyodideDir: pyodideDir() };
}

function workerScript(): string {
  const built = join(__dirname, WORKER_BUNDLE);
  if (existsSync(built)) return built;
  if (!existsSync(join(__dirname, "worker.ts")))
    throw new UserError(`the Python sandbox is missing: expected ${built} (rebuild with npm run build)`);
  return bundleWorkerFromSource();
}

/** The worker bundled from src/ (tests that run a bundled CLI put it next to that bundle). */
export function bundleWorkerFromSource(): string {
  const inputs = ["worker.ts", "lockdown.ts", "guest.ts", "protocol.ts", "snapshot.ts"].map((f) => join(__dirname, f));
  return bundleFromSource(join(__dirname, "worker.ts"), [...inputs, require.resolve("pyodide/package.json")]);
}

function pyodideDir(): string {
  const shipped = join(__dirname, PYODIDE_DIR);
  if (existsSync(join(shipped, "pyodide.asm.wasm"))) return shipped;
  try {
    return dirname(require.resolve("pyodide/package.json"));
  } catch (e) {
    throw new UserError(
      `the Python sandbox is missing Pyodide: expected ${shipped} (rebuild with npm run build) (${(e as Error).message.split("\n")[0]})`,
    );
  }
}

/**
 * Bundles a TypeScript entry for the worker's locked-down Node (which cannot run tsx) into
 * .cache/ in the project (not a shared temp folder, where another user could plant the file first),
 * named by the hash of `inputs`, once; concurrent test processes agree on the file.
 */
export function bundleFromSource(source: string, inputs: string[]): string {
  const hash = createHash("sha256");
  for (const f of inputs) hash.update(readFileSync(f));
  const outDir = join(PROJECT_ROOT, ".cache", `sandbox-${hash.digest("hex").slice(0, 16)}`);
  const out = join(outDir, `${basename(source, ".ts")}.js`);
  if (existsSync(out)) return out;
  mkdirSync(outDir, { recursive: true });
  // Loaded only here: the built CLI never reaches this branch and esbuild is not shipped.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose, see above
  const esbuild = require("esbuild") as typeof import("esbuild");
  const tmp = `${out}.${process.pid}.tmp`;
  esbuild.buildSync({
    entryPoints: [source],
    outfile: tmp,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: WORKER_EXTERNALS,
    logLevel: "error",
  });
  renameSync(tmp, out);
  return out;
}
