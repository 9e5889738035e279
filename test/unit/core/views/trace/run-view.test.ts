/**
 * What each environment's runs show, from its info.ts declaration only: HotpotQA's searches,
 * gold-in-results and F1/EM; GSM8K's one metric "accuracy" and no search controls; a run of an
 * environment this build does not know shows every control under the record format's slots.
 */
import assert from "node:assert/strict";
import { ENVIRONMENT_INFO } from "../../../../../src/core/envs/catalog";
import { runViewSpec, UNKNOWN_ENV_VIEW } from "../../../../../src/core/views/trace/run-view";

describe("core: a run's view from its environment's declaration", () => {
  it("HotpotQA: searches and gold-in-results, F1 (primary) and EM", () => {
    const v = runViewSpec("hotpotqa");
    assert.deepEqual(
      [v.environment, v.searches, v.goldInResults, v.primary.label, v.binary.label, v.oneMetric],
      ["hotpotqa", true, true, "F1", "EM", false],
    );
  });

  it("GSM8K: one metric named accuracy, no searches, no gold-in-results", () => {
    const v = runViewSpec("gsm8k");
    assert.deepEqual(
      [v.environment, v.searches, v.goldInResults, v.primary.label, v.binary.label, v.oneMetric],
      ["gsm8k", false, false, "accuracy", "accuracy", true],
    );
    assert.equal(v.primary.name, "correct");
  });

  it("an unknown environment shows every control; each registered one follows its declared controls", () => {
    assert.deepEqual(runViewSpec("not-registered"), UNKNOWN_ENV_VIEW);
    assert.equal(UNKNOWN_ENV_VIEW.environment, undefined);
    assert.equal(UNKNOWN_ENV_VIEW.searches && UNKNOWN_ENV_VIEW.goldInResults, true);
    for (const e of ENVIRONMENT_INFO) {
      const v = runViewSpec(e.name);
      assert.equal(v.searches, (e.traceControls ?? []).includes("searches"), e.name);
      assert.equal(v.goldInResults, (e.traceControls ?? []).includes("gold-in-results"), e.name);
      // Searches are shown only for an environment whose model calls tools.
      if (v.searches) assert.equal(e.hasTools, true, e.name);
    }
  });
});
