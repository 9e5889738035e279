import assert from "node:assert/strict";
import { offlineTokenizer } from "../../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../../src/core/base/chat/tokenizer";
import { ScriptedPolicy } from "../../../../src/core/harness/policies/scripted";

describe("policies: ScriptedPolicy", function () {
  let tok: ChatTokenizer;
  before(async () => {
    tok = await offlineTokenizer();
  });
  const opts = { temperature: 0, maxTokens: 512 };

  it("replays a list of replies, each closed by the end token, with fixed logprobs", async () => {
    const p = new ScriptedPolicy(tok, ["<search>a</search>", "<answer>b</answer>"], { logprob: -0.25, model: "demo" });
    const first = await p.sample([1, 2, 3], opts);
    assert.deepEqual(first.tokens, [...tok.encode("<search>a</search>"), p.endToken]);
    assert.deepEqual(
      first.logprobs,
      first.tokens.map(() => -0.25),
    );
    assert.equal(first.stopReason, "stop");
    assert.equal(tok.decode((await p.sample([], opts)).tokens), "<answer>b</answer><|im_end|>");
    await assert.rejects(p.sample([], opts), /has 2 replies; turn 3 was asked for/);
    assert.deepEqual(p.prompts, [[1, 2, 3], [], []]);
    assert.deepEqual(p.describe(), { kind: "scripted", model: "demo", logprobs: true });
  });

  it("asks a function for each reply, showing it the conversation so far", async () => {
    const seen: string[] = [];
    const p = new ScriptedPolicy(tok, ({ turn, promptText }) => (seen.push(promptText), `<answer>${turn}</answer>`));
    await p.sample(tok.encode("<|im_start|>user\nQ<|im_end|>"), opts);
    const second = await p.sample([], opts);
    assert.deepEqual(seen, ["<|im_start|>user\nQ<|im_end|>", ""]);
    assert.equal(tok.decode(second.tokens, { skipSpecialTokens: true }), "<answer>1</answer>");
  });

  it("simulates length stops (cut at maxTokens, no end token), missing end tokens and missing logprobs", async () => {
    const p = new ScriptedPolicy(tok, [
      { text: "<answer>Arthur's Magazine</answer>", stopReason: "length" },
      { text: "<answer>x</answer>", omitEndToken: true },
      { text: "<answer>x</answer>", noLogprobs: true },
    ]);
    const cut = await p.sample([], { temperature: 0, maxTokens: 3 });
    assert.deepEqual(
      [cut.tokens, cut.stopReason],
      [tok.encode("<answer>Arthur's Magazine</answer>").slice(0, 3), "length"],
    );
    assert.ok(!(await p.sample([], opts)).tokens.includes(p.endToken));
    assert.equal((await p.sample([], opts)).logprobs, null);
  });

  it("honours an aborted signal", async () => {
    const p = new ScriptedPolicy(tok, ["x"]);
    await assert.rejects(p.sample([], { ...opts, signal: AbortSignal.abort(new Error("stop now")) }), /stop now/);
  });
});
