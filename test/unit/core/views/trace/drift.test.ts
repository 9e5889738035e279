/**
 * The drift check on real episodes: a correctly stitched episode shows no drift under the Qwen3
 * and the real Qwen3.5 templates; a stitching bug (a lost newline between turns) is found at the
 * token where it happens; a re-tokenized conversation (same text, other ids) is flagged token by
 * token while its text matches.
 */
import assert from "node:assert/strict";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import {
  checkDrift,
  countDrift,
  countEpisodeDrift,
  driftSettings,
  driftVerdict,
  type DriftReport,
  emptyDriftCounts,
  messagesFromText,
} from "../../../../../src/core/views/trace/drift";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { requireSharedData, sharedDataPath } from "../../../../helpers/shared-data";
import { readHotpot, realEpisode, type HotpotRow } from "./real-episodes";

describe("trace: drift check", function () {
  let tok: ChatTokenizer;
  let row: HotpotRow;
  let ep: EpisodeRecord;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    tok = await offlineTokenizer("qwen3");
    row = readHotpot(file).find((r) => r.answer !== "yes" && r.answer !== "no")!;
    ep = await realEpisode(tok, row, [
      `<search>${row.context[0][0]}</search>`,
      `<search>${row.context[1][0]}</search>`,
      `<answer>${row.answer}</answer>`,
    ]);
  });

  it("reads the messages back out of the tokens", () => {
    const chat = messagesFromText(tok.decode([...ep.prompt, ...ep.tokens]));
    assert.deepEqual(
      chat.messages.map((m) => m.role),
      ["system", "user", "assistant", "user", "assistant", "user", "assistant"],
    );
    assert.equal(chat.messages[2].content, `<search>${row.context[0][0]}</search>`);
    assert.equal(chat.addGenerationPrompt, false);
  });

  it("a correctly stitched episode has no drift (Qwen3 template)", () => {
    const r = checkDrift(tok, ep.prompt, ep.tokens, ep.sampled);
    assert.equal(r.checked, true, r.problem);
    assert.equal(driftVerdict(r), "clean");
    assert.deepEqual(
      r.emittedSpecial,
      [],
      "the stop token closing each reply is structure, not an emitted special token",
    );
    assert.equal(r.messages, 7);
    assert.equal(r.textMatches, true, JSON.stringify(r.firstTextDifference));
    assert.deepEqual(r.tokenDifferences, []);
  });

  it("a correctly stitched episode has no drift under the real Qwen3.5 template", async function () {
    const template = sharedDataPath("qwen3_5", "qwen3_5_chat_template.jinja");
    if (!template) this.skip();
    const tok35 = await offlineTokenizer("qwen3.5", { templateFile: template });
    const ep35 = await realEpisode(tok35, row, [
      `<search>${row.context[0][0]}</search>`,
      `<answer>${row.answer}</answer>`,
    ]);
    const r = checkDrift(tok35, ep35.prompt, ep35.tokens, ep35.sampled);
    assert.equal(r.textMatches, true, JSON.stringify(r.firstTextDifference));
    assert.equal(r.differingTokens, 0);
    // Without the flags every turn counts as inserted, and the template renders the earlier reply
    // (before the search result, the last user query) without the think block the sampler saw.
    const unflagged = checkDrift(tok35, ep35.prompt, ep35.tokens);
    assert.equal(driftVerdict(unflagged), "template-drift");
    assert.match(unflagged.firstTextDifference!.recorded, /^<?think>/);
  });

  it("finds a stitching bug (the newline after <|im_end|> lost) at the token where it happens", () => {
    const turn = ep.turns![0];
    // The inserted user turn starts with "\n<|im_start|>user…": drop that newline token.
    const nl = tok.encode("\n");
    assert.equal(nl.length, 1);
    assert.equal(ep.tokens[turn.reply_end], nl[0], "the harness's user turn starts with a newline token");
    const broken = [...ep.tokens.slice(0, turn.reply_end), ...ep.tokens.slice(turn.reply_end + 1)];
    const sampled = [...ep.sampled.slice(0, turn.reply_end), ...ep.sampled.slice(turn.reply_end + 1)];
    const r = checkDrift(tok, ep.prompt, broken, sampled);
    assert.equal(r.textMatches, false);
    assert.equal(driftVerdict(r), "template-drift");
    assert.equal(r.firstTextDifference!.writer, "inserted");
    assert.equal(r.firstTextDifference!.tokenIndex, ep.prompt.length + turn.reply_end);
    assert.match(r.firstTextDifference!.expected, /^\n<\|im_start\|>user/);
    assert.ok(r.tokenDifferences.length > 0);
  });

  it("flags a non-canonical split of the same text token by token, while the text matches", () => {
    // What a sampler may emit and a re-tokenizer would never reproduce: the answer spelled one
    // character per token. Same text, other ids: RL logprobs would silently attach to other tokens.
    const last = ep.turns![ep.turns!.length - 1];
    const answer = `<answer>${row.answer}</answer>`;
    const canonical = tok.encode(answer);
    assert.deepEqual(ep.tokens.slice(last.start, last.start + canonical.length), canonical);
    const spelled = [...answer].flatMap((ch) => tok.encode(ch));
    assert.notEqual(spelled.length, canonical.length);
    const tokens = [...ep.tokens.slice(0, last.start), ...spelled, ...ep.tokens.slice(last.start + canonical.length)];
    const sampled = [
      ...ep.sampled.slice(0, last.start),
      ...spelled.map(() => 1),
      ...ep.sampled.slice(last.start + canonical.length),
    ];
    const r = checkDrift(tok, ep.prompt, tokens, sampled);
    assert.equal(r.textMatches, true, JSON.stringify(r.firstTextDifference));
    assert.ok(r.tokenDifferences.length > 0);
    const [a, b] = r.tokenDifferences[0];
    assert.ok(
      a >= ep.prompt.length + last.start && b <= ep.prompt.length + last.start + spelled.length,
      `range ${a}-${b}`,
    );
    // The model wrote these tokens: a non-canonical split (harmless when training uses these ids), not template drift.
    assert.equal(driftVerdict(r), "non-canonical");
    assert.equal(r.templateDriftTokens, 0);
    assert.equal(r.nonCanonicalTokens, r.differingTokens);
  });

  it("the same re-split in text the harness inserted (a search result) is template drift", () => {
    const turn = ep.turns![0];
    const resultText = tok.decode(ep.tokens.slice(turn.reply_end, turn.end));
    const word = resultText.match(/[A-Z][a-z]{5,}/)![0];
    const at =
      turn.reply_end +
      ep.tokens
        .slice(turn.reply_end, turn.end)
        .findIndex((_, k, arr) => tok.decode(arr.slice(k, k + 1)).includes(word.slice(0, 3)));
    // Re-encode that inserted token one character at a time: same text, other ids.
    const piece = tok.decode([ep.tokens[at]]);
    const spelled = [...piece].flatMap((ch) => tok.encode(ch));
    assert.ok(spelled.length > 1, `"${piece}" is split into ${spelled.length}`);
    const tokens = [...ep.tokens.slice(0, at), ...spelled, ...ep.tokens.slice(at + 1)];
    const sampled = [...ep.sampled.slice(0, at), ...spelled.map(() => 0), ...ep.sampled.slice(at + 1)];
    const r = checkDrift(tok, ep.prompt, tokens, sampled);
    assert.equal(r.textMatches, true);
    assert.equal(driftVerdict(r), "template-drift");
    assert.equal(r.nonCanonicalTokens, 0);
    assert.deepEqual(r.templateDrift, [[ep.prompt.length + at, ep.prompt.length + at + spelled.length]]);
  });

  it("special tokens the model emits in a reply are reported as such, not as template drift", async () => {
    // An untrained base opening its reply with a role header of its own.
    const e = await realEpisode(tok, row, [`<|im_start|>assistant\n<answer>${row.answer}</answer>`]);
    const start = tok.tokenId("<|im_start|>");
    const at = e.prompt.length + e.turns![0].start;
    assert.equal(e.tokens[e.turns![0].start], start, "the model's first token is <|im_start|>");
    const r = checkDrift(tok, e.prompt, e.tokens, e.sampled);
    assert.deepEqual(r.emittedSpecial, [at]);
    assert.equal(driftVerdict(r), "clean", JSON.stringify(r.firstTextDifference));
    assert.equal(r.textMatches, true);
    assert.equal(r.templateDriftTokens, 0);
    // Without the sampled flags every token counts as inserted: the old reading, which called it drift.
    assert.equal(driftVerdict(checkDrift(tok, e.prompt, e.tokens)), "template-drift");
  });

  it("reports the template dropping a reply's leading newline as a text difference", async () => {
    const e = await realEpisode(tok, row, ["\n<answer>" + row.answer + "</answer>"]);
    const r = checkDrift(tok, e.prompt, e.tokens, e.sampled);
    assert.equal(r.checked, true);
    assert.equal(r.textMatches, false);
    assert.equal(r.firstTextDifference!.tokenIndex, e.prompt.length, "at the reply's first token");
    assert.equal(r.firstTextDifference!.writer, "sampled", "the model wrote that newline: not a stitching bug");
    assert.equal(driftVerdict(r), "non-canonical");
    assert.equal(r.templateDriftTokens, 0, "nothing after the model's own difference is miscounted as drift");
    // A run's counts leave the reply renderings out, and count it the same.
    const full = emptyDriftCounts();
    countDrift(full, r);
    const light = emptyDriftCounts();
    countEpisodeDrift(light, tok, e, driftSettings(undefined));
    assert.deepEqual(light, full);
    assert.equal(checkDrift(tok, e.prompt, e.tokens, e.sampled, undefined, { replies: false }).textMatches, true);
  });

  it("reports why when the tokens hold no chat turns", () => {
    const r = checkDrift(tok, [], tok.encode("just some text"));
    assert.equal(r.checked, false);
    assert.match(r.problem!, /no chat turns/);
  });
});

describe("trace: drift verdict", () => {
  const report = (over: Partial<DriftReport>): DriftReport => ({
    checked: true,
    messages: 3,
    textMatches: false,
    tokenDifferences: [],
    differingTokens: 0,
    templateDrift: [],
    templateDriftTokens: 0,
    nonCanonical: [],
    nonCanonicalTokens: 0,
    emittedSpecial: [],
    ...over,
  });
  const difference = (writer: "inserted" | "sampled") => ({ tokenIndex: 5, expected: "\n", recorded: "", writer });

  // A text difference with no differing token: the ids spell another text the template would not write.
  it("is template drift when the first text difference was written by inserted tokens, though no token differs", () => {
    assert.equal(driftVerdict(report({ firstTextDifference: difference("inserted") })), "template-drift");
  });

  it("is non-canonical for a sampled text difference or sampled re-splits alone; clean with neither; not checked when it did not run", () => {
    assert.equal(driftVerdict(report({ firstTextDifference: difference("sampled") })), "non-canonical");
    assert.equal(driftVerdict(report({ textMatches: true, nonCanonicalTokens: 2 })), "non-canonical");
    assert.equal(driftVerdict(report({ textMatches: true })), "clean");
    assert.equal(driftVerdict(report({ templateDriftTokens: 1, textMatches: true })), "template-drift");
    assert.equal(driftVerdict(report({ checked: false, templateDriftTokens: 1 })), "not-checked");
  });
});
