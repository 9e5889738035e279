/**
 * The rehearsal's settings and split sizes (the end-to-end run is test/unit/cli/rehearse-cli.test.ts):
 * tiny sizes priced at the recipe's prices, splits that fit 200 dev questions, the refusals of
 * combinations that make no sense, and a full-size pipeline on a small dev set refused before any eval.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STAND_IN_TOKENIZER } from "../../../../../src/core/base/chat";
import { loadConfig } from "../../../../../src/core/envs/config";
import { prepareData } from "../../../../../src/core/envs/hotpotqa/prepare";
import { generateSyntheticHotpot } from "../../../../../src/core/envs/hotpotqa/synthetic-world";
import { UserError } from "../../../../../src/core/base/errors";
import { planPipeline, renderPlan } from "../../../../../src/core/steps/pipeline/plan";
import { pricedFor } from "../../../../../src/core/steps/pipeline/rehearsal-target";
import { runPipeline } from "../../../../../src/core/steps/pipeline/run-pipeline";
import { settingsFor, type PipelineFiles } from "../../../../../src/core/steps/pipeline/settings";
import { startLocalBackend } from "../../../../helpers/local-backend";

describe("core/steps/pipeline: rehearsal settings", function () {
  this.timeout(60_000);
  let root: string;
  let files: PipelineFiles;
  before(() => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-rehearsal-settings-"));
    const world = generateSyntheticHotpot({ seed: 5, train: 20, dev: 200 });
    writeFileSync(join(root, "train.json"), JSON.stringify(world.train));
    writeFileSync(join(root, "dev.json"), JSON.stringify(world.dev));
    files = { source: "files", train: [join(root, "train.json")], dev: [join(root, "dev.json")] };
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("plans every stage at tiny sizes with the stand-in tokenizer: cents at the recipe's prices, $0 on the local stand-in", () => {
    const s = settingsFor("tinker", { rehearse: true, files });
    assert.equal(s.rehearsal?.tokenizer, STAND_IN_TOKENIZER);
    assert.deepEqual(s.data, files);
    const config = loadConfig(root);
    const paid = planPipeline({ dir: join(root, "plan"), config, settings: s });
    assert.ok(paid.totalUsd > 0 && paid.totalUsd < 0.1, `≈ $${paid.totalUsd.toFixed(4)} at the recipe's prices`);
    const text = renderPlan(paid);
    assert.match(text, /splits \(test 100, val 100, train\)/);
    assert.match(text, /eval the base model with search on val \(3 questions\)/);
    assert.match(text, /4 train questions × 2 tries at T=0\.8, keep the shortest trace with F1 ≥ 0\n/);
    const free = planPipeline({
      dir: join(root, "plan"),
      config: pricedFor(config, { baseUrl: "http://127.0.0.1:1", standIn: true }),
      settings: s,
    });
    assert.equal(free.totalUsd, 0);
    assert.equal(
      pricedFor(config, { baseUrl: "https://example.invalid", standIn: false }),
      config,
      "any other server keeps the real prices",
    );
    assert.ok(
      config.prices[config.model].prefill > 0,
      "pricing the stand-in free never touches the config it came from",
    );
  });

  it("the rehearsal's split sizes fill val from 200 dev questions; the recipe's leave it empty", async () => {
    const small = await prepareData(
      join(root, "small"),
      { trainFiles: files.train, devFiles: files.dev, source: "test" },
      () => {},
      { sizes: { test: 100, val: 100 } },
    );
    assert.deepEqual([small.counts.test, small.counts.val], [100, 100]);
    const recipe = await prepareData(join(root, "recipe"), {
      trainFiles: files.train,
      devFiles: files.dev,
      source: "test",
    });
    assert.deepEqual([recipe.counts.test, recipe.counts.val], [200, 0]);
  });

  it("a full-size run on 200 dev questions stops after prepare with a one-line reason, before any eval", async () => {
    const dir = join(root, "full");
    const s = settingsFor("tinker", { files });
    await assert.rejects(
      runPipeline({ startLocalBackend, dir, backend: "tinker", settings: s, yes: true, log: () => {} }),
      (e: Error) =>
        e instanceof UserError &&
        /val\.jsonl is empty: the dev records fill only the test split \(200 questions\); .*--rehearse/.test(e.message),
    );
    assert.equal(existsSync(join(dir, "runs")), false);
  });

  it("refuses what makes no sense, in one line", async () => {
    assert.throws(() => settingsFor("local", { rehearse: true }), /--rehearse needs --backend tinker/);
    assert.throws(() => settingsFor("local", { files }), /--train\/--dev needs --backend tinker/);
    assert.throws(() => settingsFor("tinker", { rehearse: true, size: "smoke" }), /--rehearse sets its own tiny sizes/);
    const missing = settingsFor("tinker", { rehearse: true, files: { ...files, dev: [join(root, "missing.json")] } });
    await assert.rejects(
      runPipeline({ startLocalBackend, dir: join(root, "x"), backend: "tinker", settings: missing, log: () => {} }),
      (e: Error) => e instanceof UserError && /^--dev .*missing\.json: no such file/.test(e.message),
    );
    assert.equal(existsSync(join(root, "x")), false);
  });
});
