/** Shared by the training tests: real HotpotQA records, a small in-memory searcher, SFT rows from a scripted teacher, a local backend. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import type { Question } from "../../../../../src/core/base/data/question";
import { runEpisode } from "../../../../../src/core/envs/hotpotqa/episode";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import type { SearchHit, Searcher } from "../../../../../src/core/base/search/searcher";
import { startLocalBackend, type RunningLocalBackend } from "../../../../../src/server";
import type { RetryPolicy } from "../../../../../src/core/base/tinker";

export const FAST_RETRY: Partial<RetryPolicy> = {
  baseDelayMs: 5,
  maxDelayMs: 20,
  pollBaseDelayMs: 5,
  pollMaxDelayMs: 20,
  sampleBackoffSmallMs: 10,
  sampleBackoffLargeMs: 10,
};

/** A short system prompt keeps the tiny model's sequences short (tests must take seconds). */
export const SHORT_PROMPT =
  "Answer the question. Search with <search>query</search>; answer with <answer>text</answer>.";

export interface HotpotRecordLite {
  id: string;
  question: string;
  answer: string;
  type: string;
  level: string;
  context: [string, string[]][];
}

export function readRecords(file: string, n: number): HotpotRecordLite[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .slice(0, n)
    .map((l) => JSON.parse(l) as HotpotRecordLite);
}

export function toQuestion(r: HotpotRecordLite): Question {
  return { id: r.id, question: r.question, answers: [r.answer], type: r.type, level: r.level };
}

/** Word-overlap search over the records' own paragraphs: real text, no index to build. */
export class TinySearcher implements Searcher {
  private readonly paragraphs: { id: number; title: string; text: string }[] = [];
  constructor(records: readonly HotpotRecordLite[]) {
    for (const r of records)
      for (const [title, sents] of r.context)
        this.paragraphs.push({ id: this.paragraphs.length, title, text: sents.join("") });
  }
  search(query: string, k: number): SearchHit[] {
    const words = new Set(
      query
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => w.length > 2),
    );
    if (words.size === 0) return [];
    return this.paragraphs
      .map((p) => ({
        ...p,
        score: p.text
          .toLowerCase()
          .split(/\W+/)
          .filter((w) => words.has(w)).length,
      }))
      .filter((p) => p.score > 0)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, k);
  }
  describe(): Record<string, unknown> {
    return { kind: "test-overlap", paragraphs: this.paragraphs.length };
  }
}

/** The corpus.jsonl rows (id, title, text) of the records, for a real BM25 index. */
export function corpusRows(records: readonly HotpotRecordLite[]): { id: number; title: string; text: string }[] {
  const rows: { id: number; title: string; text: string }[] = [];
  for (const r of records)
    for (const [title, sents] of r.context) rows.push({ id: rows.length, title, text: sents.join("") });
  return rows;
}

/**
 * SFT rows as sft-data writes them, from a scripted teacher in the real harness: search the
 * question's first supporting title, then answer with the gold answer.
 */
export async function teacherRows(tok: ChatTokenizer, records: readonly HotpotRecordLite[], searcher: Searcher) {
  const rows = [];
  for (const r of records) {
    const policy = new ScriptedPolicy(tok, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`]);
    const ep = await runEpisode(policy, searcher, toQuestion(r), {
      systemPrompt: SHORT_PROMPT,
      topK: 1,
      maxSearches: 2,
      maxTokens: 64,
    });
    rows.push({
      id: ep.id,
      question: ep.question,
      answers: ep.answers,
      prompt: ep.prompt,
      tokens: ep.tokens,
      sampled: ep.sampled,
      logprobs: ep.logprobs,
      searches: ep.searches,
      reward: ep.reward,
    });
  }
  return rows;
}

export function writeJsonlFile(file: string, rows: unknown[]): string {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, rows.map((r) => JSON.stringify(r) + "\n").join(""));
  return file;
}

export async function qwenTokenizer(): Promise<ChatTokenizer> {
  return offlineTokenizer("qwen3");
}

export interface LocalWorld {
  root: string;
  backend: RunningLocalBackend;
  close(): Promise<void>;
}

export async function localWorld(prefix: string): Promise<LocalWorld> {
  const root = mkdtempSync(join(tmpdir(), `agent-lab-${prefix}-`));
  const backend = await startLocalBackend({
    dir: join(root, "backend"),
    seed: 3,
    longPollMs: 500,
    log: () => undefined,
  });
  return {
    root,
    backend,
    close: async () => {
      await backend.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
