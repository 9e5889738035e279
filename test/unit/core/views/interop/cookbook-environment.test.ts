/**
 * tinker-cookbook folders keep their environment: a math_rl folder whose config.json is shaped as
 * the cookbook's ml_log writes it (its train Config dumped, the dataset builder as bare fields) is
 * read as GSM8K — by the run name for env=gsm8k and env=math, by the recipe when nothing else
 * names it — and its rows, checkpoints and dashboard carry that (the dashboard's val metric is
 * GSM8K's "accuracy"); a folder of a recipe we have no environment for names none (Evaluate asks),
 * and its dashboard borrows no metric name.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cookbookEnvironment } from "../../../../../src/core/views/interop/cookbook-environment";
import { readCookbookRun } from "../../../../../src/core/views/interop/cookbook";
import { cookbookDashboard, UNKNOWN_COOKBOOK_METRIC } from "../../../../../src/core/views/interop/cookbook-dashboard";
import {
  checkpointRows,
  cookbookCheckpointEntries,
  COOKBOOK_ENVIRONMENT_UNKNOWN,
} from "../../../../../src/extension/checkpoints/checkpoints-model";
import { readCookbookRow } from "../../../../../src/extension/runs/runs-model";
import { GSM8K_INFO } from "../../../../../src/core/envs/gsm8k/info";
import { cookbookMathConfig, writeCookbookRun } from "../../../../helpers/cookbook-fixture";

/** A recipe Agent Lab has no environment for (the cookbook's twenty-questions game), dumped the same way. */
function unknownConfig(): Record<string, unknown> {
  const c = cookbookMathConfig("x");
  return {
    ...c,
    recipe_name: "twenty_questions",
    wandb_name: "twenty-questions-llama-2026-12-01",
    dataset_builder: { batch_size: 100, model_name_for_tokenizer: "m", renderer_name: "llama3", group_size: 4 },
  };
}

describe("tinker-cookbook folders keep their environment", () => {
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-cookbook-env-"))));
  after(() => rmSync(root, { recursive: true, force: true }));

  it("reads a math_rl config.json as GSM8K: env=gsm8k and env=math by the run name, else by the recipe", () => {
    assert.deepEqual(cookbookEnvironment(cookbookMathConfig("gsm8k")), {
      name: "gsm8k",
      from: `config.json wandb_name "${cookbookMathConfig("gsm8k").wandb_name}"`,
    });
    assert.equal(cookbookEnvironment(cookbookMathConfig("math"))?.name, "gsm8k");
    // A renamed run (no env in its name): the recipe still says math_rl.
    const renamed = { ...cookbookMathConfig("gsm8k"), wandb_name: "my-run", log_path: "logs/my-run" };
    assert.deepEqual(cookbookEnvironment(renamed), {
      name: "gsm8k",
      from: 'config.json recipe_name "recipe_math_rl"',
    });
    // A builder recorded with its class path (a callable or a type key in the dump) names it outright.
    const typed = {
      ...renamed,
      recipe_name: "mine",
      dataset_builder: { __chz_type__: "tinker_cookbook.recipes.math_rl.math_env:Gsm8kDatasetBuilder" },
    };
    assert.equal(cookbookEnvironment(typed)?.name, "gsm8k");
  });

  it("names none for an unknown builder or recipe, and none when two of ours are named", () => {
    assert.equal(cookbookEnvironment(unknownConfig(), ["twenty_questions"]), undefined);
    assert.equal(cookbookEnvironment({}), undefined);
    // The run says gsm8k, its rollouts are tagged hotpotqa: not ours to pick.
    assert.equal(cookbookEnvironment(cookbookMathConfig("gsm8k"), ["hotpotqa"]), undefined);
    // The declaration is data in the environment's info.ts, not here.
    assert.deepEqual(GSM8K_INFO.cookbookNames?.recipes, ["math_rl"]);
  });

  it("a math folder's run, rows, checkpoints and dashboard carry GSM8K; an unknown folder's say it is not named", () => {
    const math = join(root, "math_rl", "gsm8k-run");
    writeCookbookRun(math, { steps: 4, saveEvery: 2, config: cookbookMathConfig("gsm8k"), tags: ["math"] });
    const run = readCookbookRun(math);
    assert.equal(run.environment?.name, "gsm8k");
    assert.equal(readCookbookRow(math).environment, "gsm8k");
    assert.match(readCookbookRow(math).tooltip, /environment gsm8k \(config\.json wandb_name/);
    const entries = cookbookCheckpointEntries(math);
    assert.ok(entries.length >= 2);
    for (const e of entries) assert.equal(e.cookbook?.environment, "gsm8k");
    const detail = checkpointRows({ entries, badLines: [] })[0].details.find((d) => d.label === "environment");
    assert.match(detail!.value, /^gsm8k \(/);
    const view = cookbookDashboard(math);
    assert.equal(view.valMetric, "accuracy");
    assert.notEqual(view.valMetric, "F1");

    const other = join(root, "twenty", "run");
    writeCookbookRun(other, { steps: 2, saveEvery: 1, config: unknownConfig(), tags: ["twenty_questions"] });
    assert.equal(readCookbookRun(other).environment, undefined);
    assert.equal(readCookbookRow(other).environment, undefined);
    const unknown = cookbookCheckpointEntries(other);
    assert.ok(unknown.length > 0);
    for (const e of unknown) assert.deepEqual(e.cookbook, {}, "a cookbook checkpoint whose environment is not named");
    const row = checkpointRows({ entries: unknown, badLines: [] })[0];
    assert.equal(row.details.find((d) => d.label === "environment")!.value, COOKBOOK_ENVIRONMENT_UNKNOWN);
    assert.equal(cookbookDashboard(other).valMetric, UNKNOWN_COOKBOOK_METRIC);
  });
});
