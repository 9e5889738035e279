/**
 * Datums built from real episodes: real HotpotQA dev questions, the offline Qwen3 tokenizer, a
 * BM25 index over the records' own paragraphs, and scripted replies run through the harness. The
 * shift by one and the masks must line up so that training touches exactly the model's own text.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import type { Episode } from "../../../../../src/core/harness";
import { runEpisode } from "../../../../../src/core/envs/hotpotqa/episode";
import { ScriptedPolicy, type ScriptedReply } from "../../../../../src/core/harness/policies/scripted";
import { openIndex } from "../../../../../src/core/base/search";
import type { Searcher } from "../../../../../src/core/base/search/searcher";
import {
  modelInputTokens,
  rlDatumFromEpisode,
  sftDatumFromEpisode,
} from "../../../../../src/core/base/tinker/wire/builders";
import type { Datum } from "../../../../../src/core/base/tinker/wire/types";
import { requireSharedData } from "../../../../helpers/shared-data";
import { readRows, writeRealDataDir, type HotpotRow } from "../../steps/sft/real-hotpot";

interface Played {
  row: HotpotRow;
  ep: Episode;
  /** The text of each reply, as the model wrote it (with its end-of-turn token when it wrote one). */
  written: string[];
}

const data = (d: Datum, key: string) => d.loss_fn_inputs[key].data as number[];

/** Contiguous runs of positions where `mask` is 1, as [start, end) pairs. */
function runsOf(mask: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  mask.forEach((m, i) => {
    if (!m) return;
    if (out.length && out[out.length - 1][1] === i) out[out.length - 1][1] = i + 1;
    else out.push([i, i + 1]);
  });
  return out;
}

describe("tinker/datums from real episodes (HotpotQA dev, offline tokenizer, BM25)", function () {
  this.timeout(60_000);
  let root: string;
  let tok: ChatTokenizer;
  let searcher: Searcher;
  const played: Played[] = [];

  before(async function () {
    const dev = readRows(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    const train = readRows(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl"));
    tok = await offlineTokenizer("qwen3");
    root = mkdtempSync(join(tmpdir(), "agent-lab-datums-"));
    await writeRealDataDir(join(root, "data"), train.slice(0, 5), dev);
    searcher = await openIndex(join(root, "data", "bm25"));

    // Eight real questions, each played a different way: two searches then the answer; one search;
    // a direct answer; a reply the sampler cut without its end token (the harness inserts it);
    // a reply that rambles before searching.
    for (const [i, row] of dev.slice(0, 8).entries()) {
      const gold = [...new Set(row.supporting_facts.map(([t]) => t))];
      const plans: ScriptedReply[][] = [
        [`<search>${gold[0]}</search>`, `<search>${gold[1] ?? gold[0]}</search>`, `<answer>${row.answer}</answer>`],
        [`<search>${row.question}</search>`, `<answer>${row.answer}</answer>`],
        [`<answer>${row.answer}</answer>`],
        [{ text: `<search>${gold[0]}</search>`, omitEndToken: true }, `<answer>${row.answer}</answer>`],
        [
          `Let me find out who or what "${gold[0]}" is first. <search>${gold[0]}</search>`,
          `<answer>${row.answer}</answer>`,
        ],
      ];
      const replies = plans[i % plans.length];
      const ep = await runEpisode(new ScriptedPolicy(tok, replies, { logprob: -0.25 }), searcher, {
        id: row.id,
        question: row.question,
        answers: [row.answer],
      });
      const written = replies.map((r) => (typeof r === "string" ? `${r}<|im_end|>` : r.text));
      played.push({ row, ep, written });
    }
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("the episodes are real: real questions, BM25 results inserted, answers scored", () => {
    assert.equal(played.length, 8);
    assert.ok(played.every(({ ep }) => ep.end === "answer"));
    assert.ok(played.filter(({ ep }) => ep.searches.length > 0).length >= 6);
    assert.ok(played.some(({ ep }) => ep.reward === 1));
    // Inserted result text is in the tokens, not in the model's own.
    const p = played[0];
    const inserted = p.ep.tokens.filter((_, i) => !p.ep.sampled[i]);
    assert.match(tok.decode(inserted), /<result>/);
  });

  it("sft datum: input = all tokens but the last, targets = all but the first, weight 1 exactly on sampled tokens shifted by one", () => {
    for (const { row, ep } of played) {
      const full = [...ep.prompt, ...ep.tokens];
      const sampledFull = [...ep.prompt.map(() => 0), ...ep.sampled];
      const d = sftDatumFromEpisode(ep);
      const input = modelInputTokens(d.model_input);
      const targets = data(d, "target_tokens");
      const weights = data(d, "weights");
      assert.deepEqual(input, full.slice(0, -1), row.id);
      assert.deepEqual(targets, full.slice(1), row.id);
      assert.equal(weights.length, input.length);
      assert.deepEqual(weights, sampledFull.slice(1), row.id);
      assert.ok(weights.every((w) => w === 0 || w === 1));
      // Position i predicts token i+1: the target at i is the input at i+1.
      for (let i = 0; i + 1 < input.length; i++) assert.equal(targets[i], input[i + 1]);
      // Nothing of the prompt is trained on, and every weighted token is one the sampler produced.
      assert.ok(weights.slice(0, ep.prompt.length - 1).every((w) => w === 0));
      assert.equal(
        weights.reduce<number>((s, w) => s + w, 0),
        ep.generated,
        row.id,
      );
    }
  });

  it("the weighted target tokens decode to exactly the model-written text, turn by turn", () => {
    for (const { row, ep, written } of played) {
      const d = sftDatumFromEpisode(ep);
      const targets = data(d, "target_tokens");
      const pieces = runsOf(data(d, "weights")).map(([a, b]) => tok.decode(targets.slice(a, b)));
      // Every weighted run is one reply, in order, and nothing else is weighted.
      assert.deepEqual(pieces, written, row.id);
      assert.equal(pieces.length, ep.turns.length);
    }
  });

  it("an end-of-turn token the harness inserted (the sampler left it out) gets weight 0, logprob 0 and advantage 0", () => {
    const cut = played.find(({ written }) => !written[0].endsWith("<|im_end|>"))!;
    const end = tok.tokenId("<|im_end|>");
    const first = cut.ep.turns[0];
    assert.equal(cut.ep.tokens[first.replyEnd - 1], end);
    assert.equal(cut.ep.sampled[first.replyEnd - 1], 0, "inserted by the harness");
    const at = cut.ep.prompt.length + first.replyEnd - 1 - 1; // datum position that predicts that token
    const sft = sftDatumFromEpisode(cut.ep);
    const rl = rlDatumFromEpisode(cut.ep, 0.5);
    assert.equal(data(sft, "target_tokens")[at], end);
    assert.equal(data(sft, "weights")[at], 0);
    assert.equal(data(rl, "logprobs")[at], 0);
    assert.equal(data(rl, "advantages")[at], 0);
  });

  it("rl datum: same input and targets; sampler logprobs and the advantage on sampled tokens only, zero on inserted ones", () => {
    for (const { row, ep } of played) {
      const advantage = -0.75;
      const sft = sftDatumFromEpisode(ep);
      const rl = rlDatumFromEpisode(ep, advantage);
      assert.deepEqual(modelInputTokens(rl.model_input), modelInputTokens(sft.model_input));
      assert.deepEqual(data(rl, "target_tokens"), data(sft, "target_tokens"));
      const weights = data(sft, "weights");
      const logprobs = data(rl, "logprobs");
      const advantages = data(rl, "advantages");
      assert.equal(logprobs.length, weights.length);
      assert.equal(advantages.length, weights.length);
      weights.forEach((w, i) => {
        assert.equal(logprobs[i], w ? -0.25 : 0, `${row.id} logprob at ${i}`);
        // 0 × a negative advantage is -0 on inserted tokens: numerically zero, which is what counts.
        assert.ok(advantages[i] === (w ? advantage : 0), `${row.id} advantage at ${i}: ${advantages[i]}`);
      });
      assert.deepEqual(logprobs, [...ep.prompt.map(() => 0), ...ep.logprobs].slice(1));
    }
  });

  it("a trace read back from sft.jsonl gives the same datum as the episode it came from", () => {
    const { ep } = played[0];
    const row = JSON.parse(
      JSON.stringify({ prompt: ep.prompt, tokens: ep.tokens, sampled: ep.sampled, logprobs: ep.logprobs }),
    );
    assert.deepEqual(sftDatumFromEpisode(row), sftDatumFromEpisode(ep));
    assert.deepEqual(rlDatumFromEpisode(row, 1), rlDatumFromEpisode(ep, 1));
  });
});
