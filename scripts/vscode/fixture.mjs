// The integration suite's workspace, made fresh at test time (no data is committed), by the CLI
// itself: `agent-lab demo` writes synthetic HotpotQA-shaped data, a BM25 index and two real eval
// runs; then a scripted teacher collects SFT traces and `train-sft` trains two epochs on the free
// local backend, which registers two real checkpoints (runs/checkpoints.jsonl, the second the
// child of the first) and leaves a training run for the dashboard; `prepare --env gsm8k` and a GSM8K
// eval run on the GSM8K fixture twin with the unit tests' scripted replies (gsm8k-fixture.ts).
// About 20 s on 2 cores.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { root } from "./harness.mjs";

/** Names the tests and screenshot cases rely on. */
export const FIXTURE = {
  evalRuns: ["heuristic", "closed-book"],
  sftData: "sft-data",
  training: "sft-it",
  checkpoints: ["sft-it-e1", "sft-it-e2"],
  gsm8kRun: "gsm8k-val",
};

/**
 * What the screenshots add to the workspace (scripts/vscode/screenshot-extras.ts makes them): a
 * GRPO run, a rerun of the heuristic eval with another prompt, a cookbook log folder, and the
 * miniature offline experiment's record.
 */
export const SHOT_EXTRAS = {
  grpo: "grpo-it",
  promptRun: "heuristic-terse",
  promptFile: "prompts/terse.md",
  cookbook: "cookbook/math-rl",
  experiment: "mini",
};

/** Creates the workspace under a new temp folder and returns its absolute path. */
export function makeFixtureWorkspace({ log = () => {} } = {}) {
  const cli = path.join(root, "dist", "cli.js");
  if (!existsSync(cli)) throw new Error("dist/cli.js is missing: run npm run build first");
  const parent = mkdtempSync(path.join(tmpdir(), "agent-lab-it-"));
  const dir = path.join(parent, "workspace");
  const t0 = Date.now();
  try {
    const runCli = (...args) =>
      execFileSync(process.execPath, [cli, ...args], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    execFileSync(process.execPath, [cli, "demo", "--dir", dir], { stdio: ["ignore", "ignore", "pipe"] });
    runCli("sft-data", "--teacher", "scripted", "--questions", "16", "--tries", "1", "--name", FIXTURE.sftData);
    runCli(
      "train-sft",
      "--data",
      `runs/${FIXTURE.sftData}`,
      "--backend",
      "local",
      "--epochs",
      "2",
      "--batch",
      "8",
      "--name",
      FIXTURE.training,
    );
    execFileSync(
      process.execPath,
      ["--import", "tsx", path.join(root, "scripts", "vscode", "gsm8k-fixture.ts"), dir, cli, FIXTURE.gsm8kRun],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
    );
  } catch (e) {
    rmSync(parent, { recursive: true, force: true });
    // execFileSync's error carries the CLI's stderr: show it, it says what went wrong.
    throw new Error(`making the fixture workspace failed: ${e instanceof Error ? e.message : e}`);
  }
  log(`[fixture] demo workspace at ${dir} in ${Date.now() - t0} ms`);
  return { dir, remove: () => rmSync(parent, { recursive: true, force: true }) };
}
