/**
 * The trace viewer's view models on real episodes: per-token text (multi-byte characters split
 * across tokens), sections from turn records, gold-in-results (retrieval vs reading failures),
 * episode filters and next/previous, the virtualised window, and full-text search in a run.
 */
import assert from "node:assert/strict";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import {
  filterRows,
  outcomeOf,
  stepEpisode,
  visibleWindow,
  type EpisodeRow,
} from "../../../../../src/core/views/trace/episode-list";
import { containsAnswer, countGoldInResults, goldInResults } from "../../../../../src/core/views/trace/gold-in-results";
import { RunSearch } from "../../../../../src/core/views/trace/run-search";
import { decodePerToken } from "../../../../../src/core/views/trace/token-text";
import { buildTraceView, traceSections } from "../../../../../src/core/views/trace/trace-view";
import { requireSharedData } from "../../../../helpers/shared-data";
import { readHotpot, realEpisode, type HotpotRow } from "./real-episodes";

describe("trace: view models", function () {
  let tok: ChatTokenizer;
  let rows: HotpotRow[];
  let row: HotpotRow;
  let goldPara: string;
  let distractor: string;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    tok = await offlineTokenizer("qwen3");
    rows = readHotpot(file);
    // A question whose answer is spelled out in one paragraph and absent from another.
    row = rows.find(
      (r) =>
        r.answer.split(" ").length >= 2 &&
        !["yes", "no"].includes(r.answer) &&
        r.context.some(([, s]) => s.join("").includes(r.answer)),
    )!;
    goldPara = row.context.find(([, s]) => s.join("").includes(row.answer))![0];
    distractor = row.context.find(([t, s]) => !s.join("").includes(row.answer) && !t.includes(row.answer))![0];
  });

  it("decodes per token so that multi-byte characters are whole and the texts add up", () => {
    const text = "Zürich 東京 🙂 naïve — done";
    const ids = tok.encode(text);
    const texts = decodePerToken(tok, ids);
    assert.equal(texts.length, ids.length);
    assert.equal(texts.join(""), tok.decode(ids));
    assert.ok(!texts.join("").includes("\uFFFD"));
    // The emoji needs several byte tokens: at least one token carries "" (its continuation).
    assert.ok(texts.includes(""), "expected a character split across tokens");
  });

  it("cuts an episode into prompt, replies and collapsible result sections", async () => {
    const ep = await realEpisode(tok, row, [`<search>${goldPara}</search>`, `<answer>${row.answer}</answer>`]);
    const sections = traceSections(ep);
    assert.deepEqual(
      sections.map((s) => s.kind),
      ["prompt", "reply", "results", "reply"],
    );
    assert.equal(sections[2].query, goldPara);
    assert.ok(sections[2].hits!.some((h) => h.title === goldPara));
    const view = buildTraceView(ep, tok);
    assert.equal(view.sampledCount + view.insertedCount, ep.tokens.length);
    assert.equal(view.sampledCount, ep.sampled.filter((s) => s === 1).length);
    // Sampled tokens are exactly the model's replies.
    const sampledText = view.tokens.texts.filter((_, i) => view.tokens.sampled[i] === 1).join("");
    assert.equal(sampledText, `<search>${goldPara}</search><|im_end|><answer>${row.answer}</answer><|im_end|>`);
    assert.equal(view.drift?.textMatches, true);
    // Checked with the setting a thinking-on run records, the same (thinking-off) stream is drift.
    const asThinking = buildTraceView(ep, tok, { driftSettings: { thinking: true } });
    assert.equal(asThinking.drift?.textMatches, false);
    assert.equal(view.gold, "found");
  });

  it("without a tokenizer shows ids and says why", async () => {
    const ep = await realEpisode(tok, row, [`<answer>x</answer>`]);
    const view = buildTraceView(ep, undefined, {}, "cannot load tokenizer");
    assert.equal(view.tokens.texts[0], `⟨${ep.tokens[0]}⟩`);
    assert.equal(view.gold, "unknown");
    assert.equal(view.decodeProblem, "cannot load tokenizer");
  });

  it("gold in results: found when the gold paragraph came back, missing when only a distractor did", async () => {
    const found = await realEpisode(tok, row, [`<search>${goldPara}</search>`, `<answer>wrong guess</answer>`], {
      topK: 1,
    });
    const missing = await realEpisode(tok, row, [`<search>${distractor}</search>`, `<answer>wrong guess</answer>`], {
      topK: 1,
    });
    const none = await realEpisode(tok, row, [`<answer>${row.answer}</answer>`]);
    assert.equal(goldInResults(found, tok), "found");
    assert.equal(
      goldInResults(missing, tok),
      "missing",
      `query ${distractor} should not return the answer ${row.answer}`,
    );
    assert.equal(goldInResults(none, tok), "no_search");
    const yesNo = rows.find((r) => r.answer === "yes")!;
    const yn = await realEpisode(tok, yesNo, [`<search>${yesNo.context[0][0]}</search>`, `<answer>yes</answer>`]);
    assert.equal(goldInResults(yn, tok), "not_applicable");
    const counts = countGoldInResults(
      [found, missing, none, yn].map((e) => ({ primary: e.metrics.f1, gold: goldInResults(e, tok) })),
    );
    assert.deepEqual(counts, {
      episodes: 4,
      foundRight: 0,
      foundWrong: 1,
      missingRight: 0,
      missingWrong: 1,
      noSearch: 1,
      notApplicable: 1,
    });
  });

  it("matches answers as whole normalised words", () => {
    assert.ok(containsAnswer("The Eiffel Tower, in PARIS.", "paris"));
    assert.ok(!containsAnswer("Parisian cafés", "Paris"));
    assert.ok(containsAnswer("born 1844 in Philadelphia", "1844"));
  });

  it("filters by outcome, searches, F1 range, gold and text ids; steps with wrap-around", () => {
    const mk = (
      id: string,
      primary: number,
      binary: number,
      end: string,
      searches: number,
      gold: EpisodeRow["gold"],
    ): EpisodeRow => ({ id, question: id, primary, binary, end, searches, outcome: outcomeOf(end, binary), gold });
    const list = [
      mk("a", 1, 1, "answer", 1, "found"),
      mk("b", 0.4, 0, "answer", 2, "found"),
      mk("c", 0, 0, "answer", 3, "missing"),
      mk("d", 0, 0, "budget", 5, "missing"),
    ];
    assert.deepEqual(
      list.map((r) => r.outcome),
      ["correct", "wrong", "wrong", "budget"],
      "the Runs tree's names",
    );
    const ids = (f: Parameters<typeof filterRows>[1]) => filterRows(list, f).map((i) => list[i].id);
    assert.deepEqual(ids({ outcomes: ["wrong", "budget"] }), ["b", "c", "d"]);
    assert.deepEqual(ids({ searches: { min: 2, max: 3 } }), ["b", "c"]);
    assert.deepEqual(ids({ primary: { min: 0.1, max: 0.9 } }), ["b"]);
    assert.deepEqual(ids({ gold: ["found"], outcomes: ["wrong"] }), ["b"]);
    assert.deepEqual(ids({ ids: new Set(["d", "a"]) }), ["a", "d"]);
    assert.equal(stepEpisode(["a", "c"], "c", 1), "a");
    assert.equal(stepEpisode(["a", "c"], "a", -1), "c");
    assert.equal(stepEpisode(["a", "c"], "b", 1), "a");
    assert.equal(stepEpisode([], "a", 1), undefined);
  });

  it("virtualises: 10,000 rows draw only the window in view", () => {
    const w = visibleWindow(10_000, 26 * 5000, 520, 26, 10);
    assert.deepEqual(w, { first: 4990, last: 5030 });
    assert.deepEqual(visibleWindow(3, 0, 520, 26, 10), { first: 0, last: 3 });
  });

  it("searches questions, queries, predictions and returned text", async () => {
    const eps: EpisodeRecord[] = [];
    for (const r of rows.slice(0, 6))
      eps.push(
        await realEpisode(tok, r, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`], { topK: 1 }),
      );
    const search = RunSearch.build(eps, tok);
    const target = eps[3];
    const qWord = target.question.split(/\W+/).filter((w) => w.length > 6)[0];
    assert.ok(search.search(qWord).includes(target.id), `question word ${qWord}`);
    // A word that only occurs in the returned paragraph text.
    const resultWord = rows[4].context[0][1]
      .join("")
      .split(/\W+/)
      .find((w) => w.length > 7 && !eps.some((e) => e.question.includes(w) || e.searches.join(" ").includes(w)));
    if (resultWord) assert.ok(search.search(resultWord).includes(eps[4].id), `result word ${resultWord}`);
    assert.deepEqual(search.search("   "), []);
  });
});
