import { strict as assert } from "node:assert";
import { DEFAULT_CONFIG } from "../../../../src/core/config";
import { makePolicy } from "../../../../src/core/eval/backends";

describe("eval/makePolicy", () => {
  it("scripted is the free, offline heuristic reader without logprobs", async () => {
    const p = await makePolicy({ backend: "scripted", config: DEFAULT_CONFIG });
    assert.deepEqual(p.describe(), { kind: "scripted", model: "heuristic-reader", logprobs: false });
    assert.equal(p.endToken, p.tokenizer.tokenId("<|im_end|>"));
    await assert.rejects(makePolicy({ backend: "scripted", config: DEFAULT_CONFIG, checkpoint: "tinker://x" }), /--checkpoint needs a backend that loads weights/);
  });

  it("says clearly which backends are not available yet, and refuses unknown names", async () => {
    for (const b of ["tinker", "local", "transformers"]) {
      await assert.rejects(makePolicy({ backend: b, config: DEFAULT_CONFIG }), new RegExp(`--backend ${b} is not available yet`));
    }
    await assert.rejects(makePolicy({ backend: "gpt", config: DEFAULT_CONFIG }), /unknown --backend "gpt"; choose one of scripted, tinker, local, transformers/);
  });
});
