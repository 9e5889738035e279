/**
 * `agent-lab experiment` and `agent-lab gen-tasks --dry-run` through the real CLI: the seed's GSM8K
 * spec prints its phase-by-phase estimate, a bad spec is one line naming file:line, validate of a
 * folder with no record is one line, and gen-tasks' estimate is printed before anything runs; a spec
 * run as the README shows it (a relative spec path, the default folder under the current one) reaches
 * a verdict that validate passes.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXPERIMENT_FILES } from "../../../src/core/steps/experiments/record";
import { EXPERIMENTS_DIR } from "../../../src/core/steps/experiments/spec";
import { miniatureSpec, writeSpec } from "../core/steps/experiments/fixtures";
import { REPO, runCli } from "./cli-process";

describe("cli: agent-lab experiment and gen-tasks --dry-run", function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-exp-cli-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the GSM8K seed spec's cost by phase and runs nothing", async () => {
    const r = await runCli([
      "experiment",
      "run",
      join(REPO, "examples", "gsm8k-self-generated.json"),
      "--dry-run",
      "--dir",
      join(dir, "x"),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /tasks:selfgen: 12000 model drafts, solve rate policy × 8: .* — ≈ \$\d+\.\d\d/);
    assert.match(r.stdout, /train:gsm8k: GRPO 100 steps × 32 × 8 = 25600 episodes/);
    assert.match(r.stdout, /estimated cost: ≈ \$\d+\.\d\d \(upper bound\); budget cap \$150\.00/);
    const { existsSync } = await import("node:fs");
    assert.equal(existsSync(join(dir, "x")), false);
  });

  it("refuses a bad spec and a folder without a record in one line each", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, '{\n  "format": "agent-lab.experiment/2"\n}\n');
    const r = await runCli(["experiment", "run", bad]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `agent-lab experiment: ${bad}:2: format: must be "agent-lab.experiment/1"`);
    const v = await runCli(["experiment", "validate", dir]);
    assert.equal(v.code, 1);
    assert.equal(
      v.stderr.trim(),
      `agent-lab experiment: ${dir} holds no experiment.json: give the record folder (runs/<name>) of an experiment`,
    );
  });

  it("gen-tasks --dry-run prices the drafts and the solve-rate tries at the model's prices", async () => {
    const r = await runCli([
      "gen-tasks",
      "--out",
      join(dir, "t"),
      "--model",
      "Qwen/Qwen3.5-4B",
      "--count",
      "100",
      "--dry-run",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^agent-lab gen-tasks would cost about \$\d+\.\d+ \(upper bound; no budget cap\): 100 drafts × \(400 prefill \+ 512 sampled tokens\); solve rate: up to 100 tasks × 8 tries/,
    );
    const free = await runCli([
      "gen-tasks",
      "--out",
      join(dir, "t"),
      "--generator",
      "scripted",
      "--solve-rate",
      "scripted",
      "--dry-run",
    ]);
    assert.equal(free.stdout.trim(), "agent-lab gen-tasks with these options spends nothing (no Tinker backend)");
  });

  it("runs a spec given by a relative path into the default folder under the current one, and validates it", async function () {
    this.timeout(300_000);
    const cwd = join(dir, "user");
    mkdirSync(cwd);
    writeSpec(cwd, miniatureSpec(), "mini.json");
    const r = await runCli(["experiment", "run", "mini.json"], {}, cwd);
    assert.equal(r.code, 0, r.stderr);
    const record = join(EXPERIMENTS_DIR, "mini", "runs", "mini");
    assert.ok(existsSync(join(cwd, record, EXPERIMENT_FILES.record)), "the record where the README says");
    const v = await runCli(["experiment", "validate", record], {}, cwd);
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /7 of 7|passed/);
  });
});
