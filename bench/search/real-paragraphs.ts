/**
 * The real-text anchor: every context paragraph of the shared HotpotQA dev and train partial files,
 * one per title (first occurrence wins), as corpus.jsonl rows, plus the 200 dev questions with the
 * titles of their supporting paragraphs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const HOTPOT_FILES = ["hotpotqa_distractor_dev_partial.jsonl", "hotpotqa_distractor_train_partial.jsonl"];

export interface Paragraph {
  id: number;
  title: string;
  text: string;
}

export interface GoldQuestion {
  question: string;
  /** Distinct titles of the supporting facts. */
  supporting: string[];
}

interface HotpotRecord {
  question: string;
  supporting_facts: [string, number][];
  context: [string, string[]][];
}

function records(file: string): HotpotRecord[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as HotpotRecord);
}

/** Paragraphs of both files, one per title; sentences keep their leading spaces, so join with "". */
export function realParagraphs(hotpotDir: string): Paragraph[] {
  const seen = new Set<string>();
  const out: Paragraph[] = [];
  for (const name of HOTPOT_FILES) {
    for (const r of records(join(hotpotDir, name))) {
      for (const [title, sentences] of r.context) {
        if (seen.has(title)) continue;
        seen.add(title);
        out.push({ id: out.length, title, text: sentences.join("") });
      }
    }
  }
  return out;
}

/** The dev questions (the first file) with their gold supporting titles. */
export function devQuestions(hotpotDir: string): GoldQuestion[] {
  return records(join(hotpotDir, HOTPOT_FILES[0])).map((r) => ({
    question: r.question,
    supporting: [...new Set(r.supporting_facts.map(([t]) => t))],
  }));
}

export function writeCorpus(paragraphs: readonly Paragraph[], file: string): void {
  writeFileSync(file, paragraphs.map((p) => JSON.stringify(p)).join("\n") + "\n");
}
