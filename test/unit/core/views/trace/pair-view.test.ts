/**
 * A flip's pair view from two real episodes of one HotpotQA question (real harness, offline Qwen3
 * tokenizer): turns aligned by number, each with the model's text, its query and result titles,
 * and a turn one episode never reached marked as absent.
 */
import assert from "node:assert/strict";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import { pairView } from "../../../../../src/core/views/trace/pair-view";
import { buildTraceView } from "../../../../../src/core/views/trace/trace-view";
import { requireSharedData } from "../../../../helpers/shared-data";
import { readHotpot, realEpisode } from "./real-episodes";

describe("core: trace pair view", function () {
  this.timeout(60_000);

  it("aligns two episodes turn by turn with their text, queries and hits", async function () {
    const row = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"))[0];
    const tok = await offlineTokenizer("qwen3");
    const searched = await realEpisode(tok, row, [
      `<search>${row.context[0][0]}</search>`,
      `<search>${row.context[1][0]}</search>`,
      `<answer>${row.answer}</answer>`,
    ]);
    const guessed = await realEpisode(tok, row, ["<answer>no idea</answer>"]);
    const view = pairView(
      buildTraceView(guessed, tok, { drift: false }),
      buildTraceView(searched, tok, { drift: false }),
      ["base", "sft"],
    );

    assert.equal(view.question, row.question);
    assert.deepEqual(view.answers, [row.answer]);
    assert.equal(view.samePrompt, true);
    assert.deepEqual(
      view.sides.map((s) => [s.run, s.prediction, s.searches]),
      [
        ["base", "no idea", 0],
        ["sft", row.answer, 2],
      ],
    );
    assert.deepEqual(
      view.turns.map((t) => [t.turn, Boolean(t.a), Boolean(t.b)]),
      [
        [1, true, true],
        [2, false, true],
        [3, false, true],
      ],
    );
    const [t1, t2, t3] = view.turns;
    assert.match(t1.a!.reply, /<answer>no idea<\/answer>/);
    assert.equal(t1.a!.action, "answer");
    assert.equal(t1.b!.action, "search");
    assert.equal(t1.b!.query, row.context[0][0]);
    assert.ok(t1.b!.hits.includes(row.context[0][0]), `hits ${t1.b!.hits.join(", ")}`);
    assert.ok(t1.b!.inserted.includes(row.context[0][1][0].trim().slice(0, 30)), "the results text the model saw");
    assert.equal(t2.b!.query, row.context[1][0]);
    assert.match(t3.b!.reply, new RegExp(`<answer>${row.answer.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}</answer>`));
  });
});
