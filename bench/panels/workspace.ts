/**
 * The panel benchmark's workspace, made by the project's own code (never hand-written JSON): the
 * synthetic world (`agent-lab demo`'s generator, with a train split of 10,000 questions), its BM25
 * index, the scripted heuristic reader evaluated by `evalSplit` on val (200 episodes, with search
 * and closed-book: what the Compare panel opens) and on train (10,000 episodes, with search and
 * closed-book), plus a short SFT training run on the local backend made by the CLI, as the
 * integration fixture makes it (the dashboard's run). Made once under bench/.work/panels and reused
 * while its marker file says it holds the same sizes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig } from "../../src/core/envs/config";
import { runDemo } from "../../src/core/steps/demo/run-demo";
import { evalSplit } from "../../src/core/steps/eval/eval-split";

export const ROOT = resolve(__dirname, "..", "..");
export const WORK = join(ROOT, "bench", ".work", "panels");
export const WORKSPACE = join(WORK, "workspace");
const MARKER = join(WORK, "made.json");

export interface PanelWorkspace {
  dir: string;
  /** Eval runs by episode count: with search, and closed-book (the Compare panel's pair). */
  runs: Record<number, { search: string; closedBook: string }>;
  /** A training run (metrics, checkpoints) for the dashboard. */
  training: string;
}

function layout(large: number): PanelWorkspace {
  const runs = join(WORKSPACE, "runs");
  return {
    dir: WORKSPACE,
    runs: {
      200: { search: join(runs, "heuristic"), closedBook: join(runs, "closed-book") },
      [large]: { search: join(runs, `heuristic-${large}`), closedBook: join(runs, `closed-book-${large}`) },
    },
    training: join(runs, "sft-bench"),
  };
}

/** The workspace with runs of 200 and `large` episodes, made now unless a previous run left it. */
export async function panelWorkspace(large: number, log: (line: string) => void): Promise<PanelWorkspace> {
  const want = { large, version: 1 };
  if (existsSync(MARKER) && readFileSync(MARKER, "utf8") === JSON.stringify(want)) return layout(large);
  rmSync(WORK, { recursive: true, force: true });
  const t0 = Date.now();
  log(`making the bench workspace in ${WORKSPACE} (once; the harness runs ${2 * large + 400} episodes)`);
  await runDemo({ dir: WORKSPACE, log: () => {}, trainQuestions: large, concurrency: 8 });
  const config = loadConfig(WORKSPACE, { concurrency: 8 });
  for (const closedBook of [false, true]) {
    const name = `${closedBook ? "closed-book" : "heuristic"}-${large}`;
    await evalSplit({
      workspaceDir: WORKSPACE,
      config,
      name,
      split: "train",
      limit: large,
      closedBook,
      resume: false,
      temperature: 0,
      backend: "scripted",
      command: ["bench/panels", name],
    });
    log(`  ${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const cli = join(ROOT, "dist", "cli.js");
  if (!existsSync(cli))
    throw new Error("dist/cli.js is missing: run npm run build first (the training run is made by the CLI)");
  const runCli = (...args: string[]) =>
    execFileSync(process.execPath, [cli, ...args], { cwd: WORKSPACE, stdio: ["ignore", "ignore", "pipe"] });
  runCli("sft-data", "--teacher", "scripted", "--questions", "16", "--tries", "1", "--name", "sft-bench-data");
  runCli(
    "train-sft",
    "--data",
    "runs/sft-bench-data",
    "--backend",
    "local",
    "--epochs",
    "2",
    "--batch",
    "8",
    "--name",
    "sft-bench",
  );
  writeFileSync(MARKER, JSON.stringify(want));
  log(`  workspace made in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return layout(large);
}

/**
 * What each run's eval does at its end (keepForCompare: the run's Compare cache with its own
 * columns' draws), here in a process of its own per run as the eval's job is, so the caller reads
 * the caches from disk as the extension host does. `root`: the checkout whose code keeps them.
 * Returns each run's wall and CPU ms.
 */
export function keepForCompareElsewhere(dirs: readonly string[], root = ROOT): { wall: number; cpu: number }[] {
  return dirs.map((dir) => {
    const script = [
      "const c0 = process.cpuUsage(), t0 = performance.now();",
      `require(${JSON.stringify(join(root, "src/core/steps/ablate/compare-cache"))}).keepForCompare(${JSON.stringify(dir)});`,
      "const c = process.cpuUsage(c0);",
      "console.log(JSON.stringify({ wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 }));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--import", "tsx", "-e", script], { encoding: "utf8" });
    return JSON.parse(out.trim().split("\n").pop()!) as { wall: number; cpu: number };
  });
}
