/**
 * Adding an environment is adding a folder: a copy of src/ with one folder more
 * (examples/environments/calculator, its imports pointed at its new place, nothing else touched)
 * runs the recipe through the real CLI from source — prepare (no hub source declared), eval (its
 * own scripted reader, and the local stand-in model), show --failures (its own two labels), sft-data, train-sft on the local backend,
 * eval of the trained checkpoint, ablate — and Compare's view model reads the runs with the
 * folder's metric, its numbers those of the episode files.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO } from "../../../helpers/repo";

const run = promisify(execFile);
const EXAMPLE = join(REPO, "examples", "environments", "calculator");

/** Mean of one metric over a run's episode file. */
function episodeMean(runDir: string, metric: string): number {
  const rows = readFileSync(join(runDir, "episodes.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { metrics: Record<string, number> });
  return rows.reduce((s, r) => s + r.metrics[metric], 0) / rows.length;
}

describe("envs: adding an environment is adding a folder", function () {
  this.timeout(300_000);
  let copy: string;
  let ws: string;
  /** The CLI of the copy, run from source as `npx tsx` would (node_modules resolves from the repo). */
  const cli = async (...args: string[]) => {
    const r = await run(
      process.execPath,
      ["--import", "tsx", join(copy, "src", "cli", "main.ts"), ...args, "--workspace", ws],
      {
        cwd: REPO,
        env: { ...process.env, NO_COLOR: "1" },
        maxBuffer: 16 * 2 ** 20,
      },
    );
    return r.stdout + r.stderr;
  };

  before(() => {
    mkdirSync(join(REPO, ".cache"), { recursive: true });
    copy = mkdtempSync(join(REPO, ".cache", "add-a-folder-"));
    cpSync(join(REPO, "src"), join(copy, "src"), { recursive: true });
    const folder = join(copy, "src", "core", "envs", "calculator");
    mkdirSync(folder);
    for (const file of readdirSync(EXAMPLE)) {
      // The one edit a user makes: the example's imports reach src/core from examples/environments/calculator/.
      const text = readFileSync(join(EXAMPLE, file), "utf8").split("../../../src/core/").join("../../");
      writeFileSync(join(folder, file), text);
    }
    ws = join(copy, "ws");
    mkdirSync(ws);
  });
  after(() => copy && rmSync(copy, { recursive: true, force: true }));

  it("prepare, eval, sft-data, train-sft, eval of the checkpoint and ablate run through the CLI; Compare reads them", async () => {
    // Listed after the environments that declare an order: the default stays the first.
    const refusal = await cli("eval", "--env", "no-such-env", "--name", "x").then(
      () => assert.fail("an unknown environment was accepted"),
      (e: { stderr: string }) => e.stderr,
    );
    assert.match(refusal, /known: hotpotqa, gsm8k, calculator$/m);

    // No hub source declared: prepare runs the folder's own writer.
    assert.match(await cli("prepare", "--env", "calculator"), /train 40 \| val 10 \| test 10/);

    // Its scripted reader calls the tool and answers right; the local stand-in model does not.
    await cli("eval", "--env", "calculator", "--name", "scripted", "--backend", "scripted");
    const local = ["--backend", "local", "--local-port", "0", "--max-tokens", "16"];
    await cli("eval", "--env", "calculator", "--name", "base", ...local);
    const runs = join(ws, "runs");
    assert.equal(episodeMean(join(runs, "scripted"), "exact"), 1);
    const manifest = JSON.parse(readFileSync(join(runs, "base", "manifest.json"), "utf8"));
    assert.deepEqual(manifest.environment, { name: "calculator", version: "1" });

    // The folder's failures.ts labels its failures: its two labels, counts summing to the episodes not right.
    const failures = JSON.parse(await cli("show", "base", "--failures", "--json")) as {
      failed: number;
      rows: { label: string; count: number }[];
    };
    assert.deepEqual(failures.rows.map((r) => r.label).sort(), ["no_final_answer", "wrong_sum"]);
    assert.equal(
      failures.rows.reduce((n, r) => n + r.count, 0),
      failures.failed,
    );
    assert.equal(failures.failed, Math.round(10 * (1 - episodeMean(join(runs, "base"), "exact"))));

    // SFT data from the scripted reader's samples (tool calls required: the folder says so), then SFT.
    assert.match(
      await cli(
        "sft-data",
        "--env",
        "calculator",
        "--name",
        "sft-data",
        "--backend",
        "scripted",
        "--questions",
        "16",
        "--tries",
        "1",
        "--min-f1",
        "1",
      ),
      /kept 16\/16 questions/,
    );
    const trained = await cli(
      "train-sft",
      "--data",
      "runs/sft-data",
      "--name",
      "sft",
      "--backend",
      "local",
      "--local-port",
      "0",
      "--epochs",
      "1",
      "--batch",
      "8",
      "--lr",
      "0.02",
    );
    const sampler = /sampler: (tinker:\/\/\S+)/.exec(trained)?.[1];
    assert.ok(sampler, trained);
    await cli("eval", "--env", "calculator", "--name", "sft-e1", ...local, "--model-path", sampler);

    // ablate pairs the three on the shared val questions, with the folder's metric.
    const out = await cli(
      "ablate",
      "base",
      "sft-e1",
      "scripted",
      "--resamples",
      "200",
      "--json",
      join(ws, "ablation.json"),
    );
    assert.match(out, /Δ exact/);
    const report = JSON.parse(readFileSync(join(ws, "ablation.json"), "utf8"));
    assert.deepEqual(report.environment, { name: "calculator", version: "1" });
    assert.equal(report.shared, 10);

    // Compare's view model (the panel's worker), in the copy, on two runs.
    const script = join(copy, "compare.ts");
    writeFileSync(
      script,
      [
        'import { loadAblationInputs } from "./src/core/steps/ablate/ablate";',
        'import { compareView } from "./src/core/steps/ablate/compare-setup";',
        "const [a, b] = process.argv.slice(2);",
        'console.log(JSON.stringify(compareView(loadAblationInputs([a, b]), "runs", undefined, [])));',
      ].join("\n"),
    );
    const view = JSON.parse(
      (
        await run(process.execPath, ["--import", "tsx", script, join(runs, "base"), join(runs, "scripted")], {
          cwd: REPO,
          maxBuffer: 64 * 2 ** 20,
        })
      ).stdout,
    ) as {
      report: {
        environment: { name: string };
        runs: { name: string; episodes: number; binary: { mean: number }; primary: { mean: number } }[];
      };
    };
    assert.equal(view.report.environment.name, "calculator");
    assert.deepEqual(
      view.report.runs.map((r) => [r.name, r.episodes, r.primary.mean, r.binary.mean]),
      [
        ["base", 10, episodeMean(join(runs, "base"), "exact"), episodeMean(join(runs, "base"), "exact")],
        ["scripted", 10, 1, 1],
      ],
    );
  });
});
