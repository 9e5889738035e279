/**
 * The run's text search matches what MiniSearch's own search with the same options matches —
 * every word exactly, as a prefix or within the fuzzy distance, all words required — for
 * questions, names, prefixes, misspellings, several words and punctuation, over real episodes with
 * their decoded search results; in the order the episodes were added; growing with the index.
 */
import { strict as assert } from "node:assert";
import MiniSearch from "minisearch";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { RUN_SEARCH_OPTIONS, RunSearch, type SearchDoc } from "../../../../../src/core/views/trace/run-search";
import { requireSharedData } from "../../../../helpers/shared-data";
import { readHotpot, realEpisode } from "./real-episodes";

/** A word with one letter changed (a typo the fuzzy match should forgive). */
const typo = (w: string) => w.slice(0, 2) + (w[2] === "e" ? "a" : "e") + w.slice(3);

describe("core: text search inside a run", function () {
  this.timeout(60_000);
  let episodes: EpisodeRecord[];
  let search: RunSearch;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).slice(0, 40);
    const tok = await offlineTokenizer("qwen3");
    episodes = await Promise.all(
      rows.map((r) =>
        realEpisode(tok, r, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`], { topK: 2 }),
      ),
    );
    search = RunSearch.build(episodes, tok);
  });

  function queries(): string[] {
    const out = new Set<string>([
      "   ",
      "?!",
      "the",
      "of the",
      "born",
      "nothing-like-this-anywhere",
      "who was",
      "American",
    ]);
    for (const e of episodes) {
      const words = e.question
        .replace(/[?,.]/g, "")
        .split(/\s+/)
        .filter((w) => w.length > 3);
      out.add(e.question);
      out.add(words.slice(-2).join(" "));
      for (const w of words.slice(0, 3)) {
        out.add(w);
        out.add(w.slice(0, 4));
        if (w.length >= 7) out.add(typo(w));
      }
      if (e.prediction) out.add(e.prediction);
    }
    return [...out];
  }

  it("matches exactly the episodes MiniSearch's own search matches (prefix, fuzzy, every word)", () => {
    const reference = MiniSearch.loadJS<SearchDoc>(search.toJSON(), RUN_SEARCH_OPTIONS);
    let withPrefix = 0;
    let withFuzzy = 0;
    for (const q of queries()) {
      const expected = reference
        .search(q)
        .map((r) => String(r.id))
        .sort();
      const got = search.search(q);
      assert.equal(new Set(got).size, got.length, `no id twice for ${JSON.stringify(q)}`);
      assert.deepEqual([...got].sort(), expected, JSON.stringify(q));
      // The query set exercises both expansions: what exact words alone would miss.
      const exact = reference.search(q, { prefix: false, fuzzy: false }).length;
      const prefixOnly = reference.search(q, { fuzzy: false }).length;
      if (prefixOnly > exact) withPrefix++;
      if (expected.length > prefixOnly) withFuzzy++;
    }
    assert.ok(
      withPrefix > 0 && withFuzzy > 0,
      `queries where a prefix (${withPrefix}) and a typo (${withFuzzy}) widen the match`,
    );
  });

  it("lists matches in the run's order and sees episodes added later", () => {
    const order = new Map(episodes.map((e, i) => [e.id, i]));
    const got = search.search("the").map((id) => order.get(id)!);
    assert.ok(got.length > 1);
    assert.deepEqual(
      got,
      [...got].sort((a, b) => a - b),
    );
    const grown = new RunSearch();
    grown.add(episodes.slice(0, 1));
    const word = episodes[1].question.split(/\W+/).filter((w) => w.length > 6 && !episodes[0].question.includes(w))[0];
    assert.ok(!grown.search(word).includes(episodes[1].id));
    grown.add(episodes.slice(1, 2));
    assert.ok(grown.search(word).includes(episodes[1].id), `${word} after the episode is added`);
  });
});
