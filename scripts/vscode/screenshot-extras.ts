/**
 * What the screenshot cases show beyond the integration fixture, made by the project's own code in
 * the fixture workspace (nothing hand-written): a GRPO run on the free local backend (group health),
 * a rerun of the heuristic eval with another system prompt (Compare's prompt diff), ablate's
 * report.md (the report preview), a tinker-cookbook log folder from the fixture builder the tests
 * use, and the miniature of the offline experiment spec run by the experiment machinery in a
 * workspace of its own (it writes its own world), its record and run folders then copied into
 * runs/. The experiment is run once into EXPERIMENT_DIR and copied from there on later calls (one
 * per theme). About a minute on 2 cores, half that with the experiment made.
 *
 *   node --import tsx scripts/vscode/screenshot-extras.ts WORKSPACE EXPERIMENT_DIR
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runExperiment } from "../../src/core/steps/experiments/run-experiment";
import { REPORT_FILE } from "../../src/core/steps/pipeline/plan";
import { writeCookbookRun } from "../../test/helpers/cookbook-fixture";
import { miniatureSpec, writeSpec } from "../../test/unit/core/steps/experiments/fixtures";
import { FIXTURE, SHOT_EXTRAS } from "./fixture.mjs";
import { startLocalBackend } from "../../test/helpers/local-backend";

const EXTRAS = SHOT_EXTRAS;

const root = join(__dirname, "..", "..");

async function main(ws: string, expDir: string): Promise<void> {
  const t0 = Date.now();
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [join(root, "dist", "cli.js"), ...args], {
      cwd: ws,
      stdio: ["ignore", "ignore", "pipe"],
    });
  cli(
    "train-grpo",
    "--backend",
    "local",
    "--init-state",
    FIXTURE.checkpoints[1],
    "--steps",
    "4",
    "--questions",
    "4",
    "--group",
    "4",
    "--save-every",
    "2",
    "--offset",
    "16",
    "--local-port",
    "0",
    "--name",
    EXTRAS.grpo,
  );
  // The shipped prompt with one more rule: a real variant, so Compare has a diff to show.
  mkdirSync(join(ws, "prompts"), { recursive: true });
  const shipped = readFileSync(join(root, "data", "prompts", "system.md"), "utf8");
  writeFileSync(join(ws, EXTRAS.promptFile), `${shipped.trimEnd()}\nKeep every query under six words.\n`);
  cli("eval", "--name", EXTRAS.promptRun, "--prompt", EXTRAS.promptFile); // the heuristic reader, as the demo's run
  cli("ablate", ...FIXTURE.evalRuns.map((r) => `runs/${r}`), "--resamples", "2000", "--report", REPORT_FILE);
  writeCookbookRun(join(ws, EXTRAS.cookbook), { steps: 12, saveEvery: 4, evalName: "test" });

  const expWs = join(expDir, "ws");
  if (!existsSync(join(expWs, "runs", EXTRAS.experiment))) {
    mkdirSync(expDir, { recursive: true });
    // Port 0: a local backend of its own (another workspace's may hold the default port).
    await runExperiment({
      startLocalBackend,
      specFile: writeSpec(expDir, miniatureSpec({ name: EXTRAS.experiment })),
      dir: expWs,
      localPort: 0,
      log: () => {},
    });
  }
  for (const run of readdirSync(join(expWs, "runs"))) {
    if (run === EXTRAS.experiment || run.startsWith(`${EXTRAS.experiment}-`))
      cpSync(join(expWs, "runs", run), join(ws, "runs", run), { recursive: true });
  }
  // The Runs tree lists the newest first: dated an hour back, these sort below the fixture's runs,
  // so the cases that expand the fixture's rows still find them on screen.
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const run of readdirSync(join(ws, "runs"))) {
    if (
      run === EXTRAS.grpo ||
      run === EXTRAS.promptRun ||
      run === EXTRAS.experiment ||
      run.startsWith(`${EXTRAS.experiment}-`)
    )
      backdate(join(ws, "runs", run), hourAgo);
  }
  backdate(join(ws, EXTRAS.cookbook), hourAgo);
  console.log(`[extras] GRPO run, prompt rerun, report, cookbook folder and experiment in ${Date.now() - t0} ms`);
}

function backdate(path: string, when: Date): void {
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) backdate(join(path, name), when);
  utimesSync(path, when, when);
}

const [ws, expDir] = process.argv.slice(2);
if (!ws || !expDir) {
  console.error("usage: node --import tsx scripts/vscode/screenshot-extras.ts WORKSPACE EXPERIMENT_DIR");
  process.exit(2);
}
main(ws, expDir).catch((e: unknown) => {
  console.error(`[extras] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
