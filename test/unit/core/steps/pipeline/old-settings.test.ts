/**
 * A pipeline folder records its settings (pipeline.json) and a rerun continues only when the new
 * settings are the same text: the offline defaults, now declared by the default environment's folder,
 * must come out exactly as earlier builds wrote them (no `env`, the same keys in the same order), or
 * every folder made before would refuse its rerun.
 */
import { strict as assert } from "node:assert";
import { DEFAULT_ENVIRONMENT } from "../../../../../src/core/envs/registry";
import { settingsFor } from "../../../../../src/core/steps/pipeline/settings";

/** pipeline.json's settings as the builds before the declared worlds wrote them (JSON.stringify of the record). */
const WRITTEN_BEFORE = {
  full: '{"backend":"local","data":{"source":"synthetic","seed":20261129,"train":3000,"dev":700},"harness":{"topK":1,"maxSearches":2,"maxTokens":32,"loraRank":8,"concurrency":8},"offlinePrompts":true,"sftData":{"questions":400,"tries":1,"temperature":0,"minF1":0.8,"role":"teacher"},"sft":{"epochs":5,"batch":4,"lr":0.01},"grpo":{"steps":60,"questions":32,"group":4,"lr":0.002,"temperature":1,"saveEvery":10,"seed":0,"normalizeAdvantages":true}}',
  smoke:
    '{"backend":"local","data":{"source":"synthetic","seed":7,"train":40,"dev":520},"harness":{"topK":1,"maxSearches":2,"maxTokens":32,"loraRank":8,"concurrency":8},"offlinePrompts":true,"sftData":{"questions":20,"tries":1,"temperature":0,"minF1":0.8,"role":"teacher"},"sft":{"epochs":1,"batch":8,"lr":0.01},"grpo":{"steps":2,"questions":2,"group":2,"lr":0.002,"temperature":1,"saveEvery":1,"seed":3,"normalizeAdvantages":true}}',
  tinker:
    '{"backend":"tinker","data":{"source":"hub"},"harness":{},"offlinePrompts":false,"sftData":{"questions":1500,"tries":4,"temperature":0.8,"minF1":0.8,"role":"self"},"sft":{"epochs":3,"batch":32,"lr":0.0002},"grpo":{"steps":30,"questions":32,"group":8,"lr":0.00004,"temperature":1,"saveEvery":10,"seed":0}}',
};

describe("core/steps/pipeline: settings of folders made by earlier builds", () => {
  it("the offline defaults and the miniature are the records earlier builds wrote, to the byte", () => {
    assert.equal(JSON.stringify(settingsFor("local")), WRITTEN_BEFORE.full);
    assert.equal(JSON.stringify(settingsFor("local", { size: "smoke" })), WRITTEN_BEFORE.smoke);
    assert.equal(JSON.stringify(settingsFor("tinker")), WRITTEN_BEFORE.tinker);
  });

  it("--env naming the default environment is the pipeline's own world, recorded without env", () => {
    assert.equal(JSON.stringify(settingsFor("local", { env: DEFAULT_ENVIRONMENT })), WRITTEN_BEFORE.full);
  });
});
