/**
 * A small data dir made of real HotpotQA records from ../shared/data: train = the 110 train
 * records, val = dev records 0–99, test = dev records 100–199, corpus = every paragraph of those
 * records, and a BM25 index over it. Plus a scripted "model" that plays each real question by a
 * plan drawn from a seeded generator, so rejection sampling has something to choose from.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import type { Question } from "../../../../../src/core/base/data/question";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "../../../../../src/core/harness/policy";
import { replyTokens } from "../../../../../src/core/base/chat/turns";
import { buildIndex } from "../../../../../src/core/base/search";

export interface HotpotRow {
  id: string;
  question: string;
  answer: string;
  type: string;
  level: string;
  supporting_facts: [string, number][];
  context: [string, string[]][];
}

export function readRows(file: string): HotpotRow[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as HotpotRow);
}

export const toQuestion = (r: HotpotRow): Question => ({
  id: r.id,
  question: r.question,
  answers: [r.answer],
  type: r.type,
  level: r.level,
});

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

/** Writes train/val/test/corpus.jsonl and the BM25 index into `dataDir`; `extraTrain` rows are appended to train. */
export async function writeRealDataDir(
  dataDir: string,
  train: HotpotRow[],
  dev: HotpotRow[],
  extraTrain: Question[] = [],
): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, "train.jsonl"), jsonl([...train.map(toQuestion), ...extraTrain]));
  writeFileSync(join(dataDir, "val.jsonl"), jsonl(dev.slice(0, 100).map(toQuestion)));
  writeFileSync(join(dataDir, "test.jsonl"), jsonl(dev.slice(100, 200).map(toQuestion)));
  const seen = new Set<string>();
  const corpus: { id: number; title: string; text: string }[] = [];
  for (const r of [...train, ...dev]) {
    for (const [title, sentences] of r.context) {
      if (seen.has(title)) continue;
      seen.add(title);
      corpus.push({ id: corpus.length, title, text: sentences.join("") });
    }
  }
  writeFileSync(join(dataDir, "corpus.jsonl"), jsonl(corpus));
  await buildIndex(join(dataDir, "corpus.jsonl"), join(dataDir, "bm25"), { workers: 0 });
}

/** How one attempt plays a question. */
export type Plan = "direct" | "search-once" | "search-twice" | "wrong";
const OPENERS: Record<Plan, (gold: string[]) => string> = {
  // Correct but never searched: solved, yet not acceptable SFT data.
  direct: () => "I think I know this one.",
  "search-once": (gold) => `<search>${gold[0]}</search>`,
  // Also correct, but longer: rejection sampling must prefer search-once.
  "search-twice": (gold) => `First I will look up the first entity, then the second one. <search>${gold[0]}</search>`,
  wrong: (gold) => `Searching, although I have a hunch. <search>${gold[0]}</search>`,
};

/**
 * Plays real HotpotQA questions: the first reply's wording fixes the plan (drawn from a seeded
 * generator), later turns read it back from the conversation, like a model that keeps to its plan.
 */
export class PlanPolicy implements Policy {
  readonly endToken: number;
  readonly plans: Plan[] = [];
  private state: number;
  private readonly byQuestion = new Map<string, HotpotRow>();

  constructor(
    readonly tokenizer: ChatTokenizer,
    rows: HotpotRow[],
    seed: number,
    private readonly info: PolicyInfo = { kind: "scripted", model: "plan-policy", logprobs: true },
    private readonly delayMs = 0,
  ) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
    this.state = seed >>> 0;
    for (const r of rows) this.byQuestion.set(r.question, r);
  }

  describe(): PolicyInfo {
    return this.info;
  }

  private draw(): Plan {
    // xorshift32: a fixed sequence for a fixed seed.
    this.state ^= this.state << 13;
    this.state >>>= 0;
    this.state ^= this.state >>> 17;
    this.state ^= this.state << 5;
    this.state >>>= 0;
    // Half the attempts go wrong, so some questions are not solved at all.
    return (["direct", "search-once", "search-twice", "wrong", "wrong", "wrong"] as const)[this.state % 6];
  }

  async sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    options.signal?.throwIfAborted();
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const text = this.tokenizer.decode([...promptTokens]);
    const row = [...this.byQuestion.entries()].find(([q]) => text.includes(q))?.[1];
    if (!row) throw new Error("PlanPolicy: unknown question");
    const gold = [...new Set(row.supporting_facts.map(([t]) => t))];
    const turn = text.split("<|im_start|>assistant").length - 2;
    let reply: string;
    if (turn === 0) {
      const plan = this.draw();
      this.plans.push(plan);
      reply = plan === "direct" ? `${OPENERS.direct(gold)} <answer>${row.answer}</answer>` : OPENERS[plan](gold);
    } else if (text.includes(OPENERS.wrong(gold))) {
      reply = "<answer>definitely not the answer</answer>";
    } else if (text.includes("First I will look up") && turn === 1 && gold[1]) {
      reply = `<search>${gold[1]}</search>`;
    } else {
      reply = `<answer>${row.answer}</answer>`;
    }
    const tokens = replyTokens(this.tokenizer, reply);
    return { tokens, logprobs: tokens.map((_, i) => -0.01 * (i + 1)), stopReason: "stop" };
  }
}
