/**
 * Runs the real `agent-lab` CLI as a child process, the way users and the extension's job runner
 * do: bundled fresh from src/ with esbuild (so a stale dist/ cannot hide a change) into a
 * git-ignored folder inside the project, where node_modules and data/prompts resolve as usual.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { bundleWorkerFromSource, WORKER_BUNDLE } from "../../../src/core/steps/tasks/sandbox/worker-files";

export const REPO = resolve(__dirname, "..", "..", "..");
let bundled: Promise<string> | undefined;

export function testCli(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import("esbuild");
    const { envFoldersPlugin } = await import("../../../scripts/env-folders.mjs");
    const { NODE_BUNDLE, NODE_EXTERNAL } = await import("../../../scripts/node-bundle.mjs");
    const dir = join(REPO, ".cache", `test-cli-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const out = join(dir, "cli.js");
    const bundle = (entry: string, outfile: string) =>
      build({
        ...NODE_BUNDLE,
        entryPoints: [join(REPO, entry)],
        outfile,
        external: [...NODE_EXTERNAL],
        logLevel: "error",
        plugins: [envFoldersPlugin()],
      });
    // The local backend's compute worker sits next to the CLI, as in dist/ (scripts/build.mjs).
    await Promise.all([
      bundle("src/cli/main.ts", out),
      bundle("src/server/compute/worker.ts", join(dir, "local-backend-worker.js")),
    ]);
    // …and so does the Python sandbox's worker (gen-tasks, experiments).
    copyFileSync(bundleWorkerFromSource(), join(dir, WORKER_BUNDLE));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return out;
  })();
  return bundled;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the CLI (in the repository, or in `cwd`); `done` settles when it exits. */
export async function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = REPO,
): Promise<{ child: ChildProcess; done: Promise<CliResult> }> {
  const cli = await testCli();
  const child = spawn(process.execPath, [cli, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "", FORCE_COLOR: undefined, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<CliResult>((res) =>
    child.on("close", (code, signal) => res({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = REPO): Promise<CliResult> {
  return (await startCli(args, env, cwd)).done;
}

/** Polls until `check` is true (or fails after `ms`). */
export async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
