/**
 * What an experiment takes from its environment instead of naming it: the metric a spec names (a
 * declared name, a role, or an older spec's label), the evaluator's grader hash (the environment's
 * declared scoring functions: the same value HotpotQA experiments have always recorded), and the
 * environment its runs record on the synthetic world (the world's own, unless an earlier build
 * started the folder under the real one's name).
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex, type RunManifest } from "../../../../../src/core/base/runs/manifest";
import { exactMatch, f1Score, normalizeAnswer } from "../../../../../src/core/envs/hotpotqa/score";
import { environmentByName } from "../../../../../src/core/envs/registry";
import {
  bundleNeutral,
  evaluatorFromManifest,
  graderSha256,
} from "../../../../../src/core/steps/experiments/evaluator";
import { experimentMetric, metricChoices } from "../../../../../src/core/steps/experiments/metric";
import { runsEnvironment } from "../../../../../src/core/steps/experiments/run-experiment";
import { parseExperimentSpecText } from "../../../../../src/core/steps/experiments/spec";
import { miniatureSpec } from "./fixtures";

describe("experiments: the environment's metric, grader and name", () => {
  it("a spec names a metric by its declared name or role; older specs' label still means the same metric", () => {
    assert.equal(experimentMetric("hotpotqa", "f1")?.name, "f1");
    assert.equal(experimentMetric("hotpotqa", "em")?.name, "em");
    assert.equal(experimentMetric("hotpotqa", "primary")?.name, "f1");
    assert.equal(experimentMetric("hotpotqa", "binary")?.name, "em");
    assert.equal(experimentMetric("hotpotqa-world", "f1")?.name, "f1");
    assert.equal(experimentMetric("gsm8k", "accuracy")?.name, "correct");
    assert.equal(experimentMetric("gsm8k", "correct")?.name, "correct");
    assert.equal(experimentMetric("gsm8k", "primary")?.name, "correct");
    assert.equal(experimentMetric("gsm8k", "f1"), undefined);
    assert.equal(experimentMetric("hotpotqa", "accuracy"), undefined);
    // A name's own label is not a second spelling of it.
    assert.equal(experimentMetric("hotpotqa", "EM"), undefined);
    assert.deepEqual(metricChoices("gsm8k"), ["correct", "primary", "binary", "accuracy"]);
    assert.deepEqual(metricChoices("hotpotqa"), ["em", "f1", "primary", "binary"]);
  });

  it("HotpotQA's grader hash: the build-neutral text's now, and the as-printed one records of earlier builds took", () => {
    // Records of earlier builds hashed the text as printed: that form is still computed (validate accepts it).
    const before = sha256Hex([normalizeAnswer, exactMatch, f1Score].map((f) => f.toString()).join("\n"));
    assert.equal(graderSha256(environmentByName("hotpotqa"), "as-printed"), before);
    assert.equal(graderSha256(environmentByName("hotpotqa-world"), "as-printed"), before);
    const now = sha256Hex([normalizeAnswer, exactMatch, f1Score].map((f) => bundleNeutral(f.toString())).join("\n"));
    assert.equal(graderSha256(environmentByName("hotpotqa")), now);
    assert.equal(graderSha256(environmentByName("hotpotqa-world")), now);
    // An environment that declares none is named by its scorer version alone, as before.
    assert.equal(graderSha256(environmentByName("gsm8k")), undefined);
    const manifest = (over: Partial<RunManifest>) =>
      ({
        harness_version: "1",
        scorer_version: "hotpotqa-official-1",
        system_prompt: { sha256: "p" },
        tokenizer: "t",
        sampling: { temperature: 0, max_tokens: 8 },
        split: { name: "val", sha256: "s" },
        ...over,
      }) as unknown as RunManifest;
    assert.deepEqual(evaluatorFromManifest(manifest({})).grader, { version: "hotpotqa-official-1", sha256: now });
    assert.deepEqual(
      evaluatorFromManifest(
        manifest({
          scorer_version: "gsm8k-cookbook-math-grader-1",
          environment: { name: "gsm8k", version: "1" },
        } as Partial<RunManifest>),
      ).grader,
      { version: "gsm8k-cookbook-math-grader-1", sha256: "(scorer gsm8k-cookbook-math-grader-1: not hashed here)" },
    );
    // Another scorer version than this build's is not hashed as if it were this build's.
    assert.match(
      evaluatorFromManifest(manifest({ scorer_version: "hotpotqa-official-0" })).grader.sha256,
      /not hashed/,
    );
  });

  describe("the environment the runs record", () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-exp-env-"))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const spec = (over = {}) => parseExperimentSpecText("spec.json", JSON.stringify(miniatureSpec(over))).spec;
    const run = (name: string, manifest: object) => {
      mkdirSync(join(dir, "runs", name), { recursive: true });
      writeFileSync(join(dir, "runs", name, "manifest.json"), JSON.stringify(manifest));
    };

    it("on the synthetic world, a new folder's runs record the world's own name", () => {
      assert.equal(runsEnvironment(spec(), dir), "hotpotqa-world");
    });

    it("a folder an earlier build started under the real name keeps it, so its runs resume", () => {
      // A HotpotQA v1 manifest names no environment (envs/manifest-environment.ts).
      run("mini-eval-base", { kind: "eval" });
      assert.equal(runsEnvironment(spec(), dir), "hotpotqa");
    });

    it("a folder this build started keeps the world's name on resume", () => {
      run("mini-world", { environment: { name: "hotpotqa-world", version: "1" } });
      assert.equal(runsEnvironment(spec(), dir), "hotpotqa-world");
    });

    it("an SFT training run records no environment: it does not make a folder old", () => {
      run("mini-init", { kind: "sft" });
      assert.equal(runsEnvironment(spec(), dir), "hotpotqa-world");
    });
  });
});
