/**
 * Real HotpotQA distractor records (../shared/data) run through the real harness with a scripted
 * policy and the offline Qwen3 tokenizer: episodes exactly as eval writes them to episodes.jsonl.
 * The searcher ranks the record's own paragraphs by words shared with the query.
 */
import { readFileSync } from "node:fs";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { toRecord } from "../../../../../src/core/steps/eval/eval-split";
import { runEpisode } from "../../../../../src/core/envs/hotpotqa/episode";
import { ScriptedPolicy, type ScriptedReply } from "../../../../../src/core/harness/policies/scripted";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import type { SearchHit, Searcher } from "../../../../../src/core/base/search/searcher";

export interface HotpotRow {
  id: string;
  question: string;
  answer: string;
  context: [string, string[]][];
}

export function readHotpot(file: string): HotpotRow[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as HotpotRow);
}

export class ParagraphSearcher implements Searcher {
  private readonly paragraphs: { id: number; title: string; text: string }[];
  constructor(row: HotpotRow) {
    this.paragraphs = row.context.map(([title, sentences], id) => ({ id, title, text: sentences.join("") }));
  }
  search(query: string, k: number): SearchHit[] {
    const words = new Set(
      query
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => w.length > 2),
    );
    const score = (p: { title: string; text: string }) =>
      `${p.title} ${p.title} ${p.text}`
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => words.has(w)).length;
    return this.paragraphs
      .map((p) => ({ ...p, score: score(p) }))
      .filter((p) => p.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
  }
  describe(): Record<string, unknown> {
    return { kind: "paragraph-overlap" };
  }
}

export async function realEpisode(
  tok: ChatTokenizer,
  row: HotpotRow,
  replies: ScriptedReply[],
  options: { topK?: number } = {},
): Promise<EpisodeRecord> {
  const ep = await runEpisode(
    new ScriptedPolicy(tok, replies),
    new ParagraphSearcher(row),
    { id: row.id, question: row.question, answers: [row.answer] },
    { topK: options.topK ?? 2 },
  );
  return toRecord(ep, 0.0001);
}

/** Each row's episode of two searches (its first two paragraphs' titles), then the gold answer. */
export function twoSearchEpisodes(tok: ChatTokenizer, rows: readonly HotpotRow[]): Promise<EpisodeRecord[]> {
  return Promise.all(
    rows.map((r) =>
      realEpisode(tok, r, [
        `<search>${r.context[0][0]}</search>`,
        `<search>${r.context[1][0]}</search>`,
        `<answer>${r.answer}</answer>`,
      ]),
    ),
  );
}
