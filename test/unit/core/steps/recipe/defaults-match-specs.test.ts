/**
 * The recipe's sizes are stated once: every pipeline setting that is a step's flag (settings.ts's
 * SETTING_FLAGS) equals that flag's default in the step specs (catalog.ts), on the Tinker recipe and
 * on the offline pipeline alike — except the offline sizes declared in LOCAL_OWN_SIZES, which must
 * really differ. The experiment's scripted teacher and the pipeline's evals follow the same rule.
 */
import { strict as assert } from "node:assert";
import { STEPS } from "../../../../../src/core/steps/catalog/catalog";
import {
  LOCAL_OWN_SIZES,
  LOCAL_SETTINGS,
  PIPELINE_EVAL,
  SETTING_FLAGS,
  TINKER_SETTINGS,
} from "../../../../../src/core/steps/pipeline/settings";
import { TEACHER_SFT } from "../../../../../src/core/steps/recipe/stages";

function flagDefault(step: string, flag: string): unknown {
  const spec = STEPS.find((s) => s.name === step);
  assert.ok(spec, `no step ${step} in the catalog`);
  const f = (spec.flags as Record<string, { default?: unknown }>)[flag];
  assert.ok(f, `no flag --${flag} on ${step}`);
  return f.default;
}

function setting(s: object, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], s);
}

describe("core/steps/recipe: stage defaults equal their step specs", () => {
  it("the recipe's sizes (TINKER_SETTINGS) are the steps' flag defaults", () => {
    for (const [path, [step, flag]] of Object.entries(SETTING_FLAGS)) {
      assert.equal(setting(TINKER_SETTINGS, path), flagDefault(step, flag), `${path} vs ${step} --${flag}`);
    }
    // GRPO takes its questions after SFT's: train-grpo's --offset default is the SFT questions.
    assert.equal(flagDefault("train-grpo", "offset"), TINKER_SETTINGS.sftData.questions);
  });

  it("the offline pipeline differs only where LOCAL_OWN_SIZES says, and there it really differs", () => {
    for (const path of LOCAL_OWN_SIZES) assert.ok(path in SETTING_FLAGS, `${path} is not a mapped setting`);
    for (const [path, [step, flag]] of Object.entries(SETTING_FLAGS)) {
      const own = LOCAL_OWN_SIZES.includes(path);
      if (own)
        assert.notEqual(
          setting(LOCAL_SETTINGS, path),
          flagDefault(step, flag),
          `${path} is declared the offline pipeline's own but equals ${step} --${flag}`,
        );
      else
        assert.equal(
          setting(LOCAL_SETTINGS, path),
          flagDefault(step, flag),
          `${path} vs ${step} --${flag} (declare it in LOCAL_OWN_SIZES if the offline size is meant to differ)`,
        );
    }
  });

  it("the pipeline's evals and the teacher's keep-threshold are the eval and sft-data defaults", () => {
    assert.equal(PIPELINE_EVAL.split, flagDefault("eval", "split"));
    assert.equal(PIPELINE_EVAL.temperature, flagDefault("eval", "temperature"));
    assert.equal(TEACHER_SFT.minF1, flagDefault("sft-data", "min-f1"));
    assert.equal(LOCAL_SETTINGS.sftData.role, TEACHER_SFT.role);
    assert.equal(LOCAL_SETTINGS.sftData.tries, TEACHER_SFT.tries);
    assert.equal(LOCAL_SETTINGS.sftData.temperature, TEACHER_SFT.temperature);
  });
});
