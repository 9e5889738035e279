import { strict as assert } from "node:assert";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { pickFailures, renderShow, renderTrace, sampledRuns } from "../../../../../src/core/views/trace/trace-text";
import { fakeManifest, fakeRecord } from "../../base/runs/fakes";

describe("runs/trace-text (agent-lab show)", () => {
  let tok: ChatTokenizer;
  before(async () => {
    tok = await offlineTokenizer("qwen3");
  });

  /** A two-turn episode: the model searches, the harness inserts results, the model answers. */
  function episode(id: string, f1: number) {
    const model1 = [...tok.encode("<search>Modis Systems founder</search>"), tok.tokenId("<|im_end|>")];
    const harness = tok.encode(
      "\n<|im_start|>user\n<result>\n[Modis Systems] founded by Nuzynd Quoudil.\n</result><|im_end|>\n<|im_start|>assistant\n",
    );
    const model2 = [...tok.encode("<answer>Styzus</answer>"), tok.tokenId("<|im_end|>")];
    const tokens = [...model1, ...harness, ...model2];
    const sampled = [...model1.map(() => 1), ...harness.map(() => 0), ...model2.map(() => 1)];
    return fakeRecord(id, {
      f1,
      em: 0,
      prediction: "Styzus",
      answers: ["Hybyrk"],
      tokens,
      sampled,
      logprobs: null,
      searches: ["Modis Systems founder"],
    });
  }

  it("groups tokens into model-written and harness-inserted runs", () => {
    assert.deepEqual(sampledRuns([1, 2, 3, 4, 5], [1, 1, 0, 0, 1]), [
      { sampled: true, tokens: [1, 2] },
      { sampled: false, tokens: [3, 4] },
      { sampled: true, tokens: [5] },
    ]);
  });

  it("plain style fences inserted text and leaves model text bare", () => {
    const text = renderTrace(episode("a", 0), tok, "plain");
    assert.match(text, /^<search>Modis Systems founder<\/search><\|im_end\|>\n⟦<\|im_start\|>user⟧\n/);
    assert.match(text, /⟦<result>⟧\n⟦\[Modis Systems\] founded by Nuzynd Quoudil\.⟧/);
    assert.match(text, /⟦<\|im_start\|>assistant⟧\n<answer>Styzus<\/answer><\|im_end\|>$/);
    assert.ok(!text.includes("\x1b["), "no escape codes in plain text");
  });

  it("ANSI style colours model text green and inserted text dim", () => {
    const text = renderTrace(episode("a", 0), tok, "ansi");
    assert.ok(text.includes("\x1b[1;32m<search>Modis Systems founder</search><|im_end|>\x1b[0m"));
    assert.ok(text.includes("\x1b[2m<result>\x1b[0m"));
    assert.ok(text.includes("\x1b[1;32m<answer>Styzus</answer><|im_end|>\x1b[0m"));
  });

  it("picks failures (F1 < 0.5) reproducibly by seed", () => {
    const eps = Array.from({ length: 20 }, (_, i) => episode(`e${i}`, i % 2 ? 1 : 0.2));
    const a = pickFailures(eps, 3, 1).map((e) => e.id);
    assert.deepEqual(
      pickFailures(eps, 3, 1).map((e) => e.id),
      a,
    );
    assert.equal(a.length, 3);
    for (const id of a) assert.equal(Number(id.slice(1)) % 2, 0, "only failures");
    const seeds = new Set(
      [1, 2, 3, 4, 5].map((s) =>
        pickFailures(eps, 3, s)
          .map((e) => e.id)
          .join(),
      ),
    );
    assert.ok(seeds.size > 1, "the seed changes the pick");
  });

  it("renders the whole show: ends, searches histogram, failures with traces", () => {
    const eps = [episode("ok", 1), { ...episode("bad", 0), end: "budget" }];
    const text = renderShow(
      { manifest: fakeManifest(), summary: undefined, episodes: eps },
      { name: "r", n: 5, seed: 0, style: "plain", tokenizer: tok },
    );
    assert.match(text, /How episodes ended\n {2}answer {5} +1 +50%/);
    assert.match(text, /budget/);
    assert.match(text, /Searches per episode\n {3}1 +2/);
    assert.match(text, /Failures \(F1 < 0\.5\): 1 of 2; showing 1/);
    assert.match(text, /── bad {2}end=budget/);
    assert.match(text, /gold: Hybyrk {4}prediction: Styzus/);
    assert.ok(!text.includes("── ok"));
  });
});
