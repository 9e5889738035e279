import { strict as assert } from "node:assert";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { generateSyntheticHotpot, type HotpotRecord } from "../../../../../src/core/envs/hotpotqa/synthetic-world";
import {
  HeuristicPolicy,
  heuristicReply,
  parseTranscript,
} from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { runEpisode } from "../../../../../src/core/envs/hotpotqa/episode";
import type { SearchHit, Searcher } from "../../../../../src/core/base/search/searcher";

/** Word-overlap search over the records' paragraphs: enough to exercise the reader without BM25. */
class OverlapSearcher implements Searcher {
  private readonly paragraphs: { id: number; title: string; text: string; words: Set<string> }[] = [];
  constructor(records: HotpotRecord[]) {
    const seen = new Set<string>();
    for (const r of records)
      for (const [title, sentences] of r.context) {
        if (seen.has(title)) continue;
        seen.add(title);
        const text = sentences.join("").trim();
        this.paragraphs.push({ id: this.paragraphs.length, title, text, words: words(`${title} ${text}`) });
      }
  }
  search(query: string, k: number): SearchHit[] {
    const q = words(query);
    return this.paragraphs
      .map((p) => ({ p, score: [...q].filter((w) => p.words.has(w)).length }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || a.p.id - b.p.id)
      .slice(0, k)
      .map(({ p, score }) => ({ id: p.id, title: p.title, text: p.text, score }));
  }
  describe() {
    return { kind: "overlap" };
  }
}
const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

describe("demo/synthetic-hotpot and the heuristic reader", () => {
  let tok: ChatTokenizer;
  before(async function () {
    tok = await offlineTokenizer("qwen3");
  });

  it("generates deterministic, unique bridge and comparison questions with 10 paragraphs that contain the answer", () => {
    const a = generateSyntheticHotpot({ seed: 7, train: 40, dev: 30 });
    const b = generateSyntheticHotpot({ seed: 7, train: 40, dev: 30 });
    assert.deepEqual(a, b);
    assert.notDeepEqual(generateSyntheticHotpot({ seed: 8, train: 40, dev: 30 }).dev[0], a.dev[0]);
    const all = [...a.train, ...a.dev];
    assert.equal(
      new Set(all.map((r) => r.question)).size,
      all.length,
      "no question twice, so train never leaks into val/test",
    );
    assert.deepEqual(new Set(all.map((r) => r.type)), new Set(["bridge", "comparison"]));
    for (const r of all) {
      assert.equal(r.context.length, 10);
      for (const [title, sent] of r.supporting_facts) {
        const para = r.context.find((c) => c[0] === title);
        assert.ok(para && para[1][sent] !== undefined, `${r._id}: supporting fact ${title}#${sent} is in the context`);
      }
      if (!["yes", "no"].includes(r.answer)) {
        assert.ok(
          r.context.some((c) => (c[0] + c[1].join("")).includes(r.answer)),
          `${r._id}: answer appears in a paragraph`,
        );
      }
    }
  });

  it("the reader searches the question, then a name it found, and never answers from the gold", () => {
    const system = "Use <search>q</search> or <answer>a</answer>.";
    const question = "Where was the founder of Modis Systems born?";
    assert.equal(
      heuristicReply({ system, question, paragraphs: new Map(), searches: [] }),
      `<search>${question}</search>`,
    );
    const company = new Map([
      [
        "Modis Systems",
        "Modis Systems is a shipbuilding company based in Styzus. It was founded in 1938 by Nuzynd Quoudil.",
      ],
    ]);
    assert.equal(
      heuristicReply({ system, question, paragraphs: company, searches: [question] }),
      "<search>Nuzynd Quoudil</search>",
    );
    company.set(
      "Nuzynd Quoudil",
      "Nuzynd Quoudil (born 1890) is a chemist. He was born in Hybyrk and later moved to Gridrou.",
    );
    assert.equal(
      heuristicReply({ system, question, paragraphs: company, searches: [question, "Nuzynd Quoudil"] }),
      "<answer>Hybyrk</answer>",
    );
    // A phrasing the rule does not read: it answers wrong (the company's town), like a weak model.
    const odd = new Map([
      ["Modis Systems", "Modis Systems is a shipbuilding company based in Styzus. Nuzynd Quoudil set it up in 1938."],
    ]);
    assert.equal(
      heuristicReply({ system, question, paragraphs: odd, searches: [question] }),
      "<answer>Styzus</answer>",
    );
    // Closed-book: no search action in the system prompt, so it can only guess.
    assert.equal(
      heuristicReply({
        system: "Answer from memory.",
        question: "Which company was founded first, A Co or B Co?",
        paragraphs: new Map(),
        searches: [],
      }),
      "<answer>A Co</answer>",
    );
  });

  it("parses the decoded chat: question, result paragraphs and its own searches", () => {
    const text =
      "<|im_start|>system\nS <search><|im_end|>\n<|im_start|>user\nWho?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<search>who</search><|im_end|>\n" +
      "<|im_start|>user\n<result>\n[A b] text a\n\n[C] text c\n</result><|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
    const t = parseTranscript(text);
    assert.equal(t.question, "Who?");
    assert.deepEqual(t.searches, ["who"]);
    assert.deepEqual(
      [...t.paragraphs],
      [
        ["A b", "text a"],
        ["C", "text c"],
      ],
    );
  });

  it("in the real harness it scores well with search and near zero closed-book", async () => {
    const data = generateSyntheticHotpot({ seed: 11, train: 0, dev: 70 });
    const searcher = new OverlapSearcher(data.dev);
    const policy = new HeuristicPolicy(tok);
    let open = 0;
    let closed = 0;
    for (const r of data.dev) {
      const q = { id: r._id, question: r.question, answers: [r.answer] };
      const ep = await runEpisode(policy, searcher, q, { topK: 3, maxSearches: 5 });
      assert.ok(ep.searches.length >= 1 && ep.searches[0] === r.question);
      assert.ok(ep.sampled.includes(0) && ep.sampled.includes(1));
      open += ep.reward;
      closed += (await runEpisode(policy, null, q, { closedBook: true })).reward;
    }
    const n = data.dev.length;
    assert.ok(open / n > 0.5 && open / n < 1, `open-book F1 ${(open / n).toFixed(3)}`);
    assert.ok(closed / n < 0.3, `closed-book F1 ${(closed / n).toFixed(3)}`);
  });
});
