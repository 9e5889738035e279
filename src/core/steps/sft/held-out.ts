/**
 * SFT data must never contain a question the model is scored on. Train, val and test come from
 * different files of the environment's dataset, but a question can still leak: a hand-edited split,
 * a re-prepared data dir, or the same question asked twice in a dataset under different ids. So every
 * candidate is checked against val and test by id *and* by its normalised text (the SQuAD answer
 * normalisation: case, punctuation, articles and spacing do not make a question new).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Question } from "../../base/data/question";
import { FileFormatError } from "../../base/errors";
import { readJsonlLines } from "../../base/util/jsonl";
import { normalizeAnswer } from "../../base/data/answer-text";

export type HeldOutSplit = "val" | "test";

/** What the check reads of an item of any environment. */
export type QuestionText = Pick<Question, "id" | "question">;

/** Case, punctuation, articles and whitespace removed, as for answers. */
export function normalizeQuestion(text: string): string {
  return normalizeAnswer(text);
}

export interface HeldOutHit {
  /** The train question that was left out. */
  id: string;
  /** Which held-out split it matched, and that split's question id. */
  split: HeldOutSplit;
  heldOutId: string;
  by: "id" | "text";
}

export class HeldOutQuestions {
  private readonly byId = new Map<string, { split: HeldOutSplit; id: string }>();
  private readonly byText = new Map<string, { split: HeldOutSplit; id: string }>();
  /** Splits that were found and read. */
  readonly splits: HeldOutSplit[] = [];

  add(split: HeldOutSplit, questions: readonly QuestionText[]): void {
    if (!this.splits.includes(split)) this.splits.push(split);
    for (const q of questions) {
      this.byId.set(q.id, { split, id: q.id });
      this.byText.set(normalizeQuestion(q.question), { split, id: q.id });
    }
  }

  /**
   * val.jsonl and test.jsonl of a data dir (a missing file is skipped: `prepare` writes both). Only
   * ids and question texts are read, to exclude them; no answer is looked at.
   */
  static fromDataDir(dataDir: string): HeldOutQuestions {
    const held = new HeldOutQuestions();
    for (const split of ["val", "test"] as const) {
      const file = join(dataDir, `${split}.jsonl`);
      if (existsSync(file)) held.add(split, readIdsAndQuestions(file));
    }
    return held;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Why `q` is held out, or undefined when it may be trained on. */
  match(q: QuestionText): HeldOutHit | undefined {
    const sameId = this.byId.get(q.id);
    if (sameId) return { id: q.id, split: sameId.split, heldOutId: sameId.id, by: "id" };
    const sameText = this.byText.get(normalizeQuestion(q.question));
    if (sameText) return { id: q.id, split: sameText.split, heldOutId: sameText.id, by: "text" };
    return undefined;
  }

  /** Splits candidates into those allowed and those left out (with the reason). */
  filter<Q extends QuestionText>(questions: readonly Q[]): { allowed: Q[]; excluded: HeldOutHit[] } {
    const allowed: Q[] = [];
    const excluded: HeldOutHit[] = [];
    for (const q of questions) {
      const hit = this.match(q);
      if (hit) excluded.push(hit);
      else allowed.push(q);
    }
    return { allowed, excluded };
  }
}

function readIdsAndQuestions(file: string): QuestionText[] {
  return readJsonlLines<Partial<Question> | null>(file).map(({ value: row, line }) => {
    if (typeof row?.id !== "string" || typeof row.question !== "string")
      throw new FileFormatError(file, line, 'expected "id" and "question" strings');
    return { id: row.id, question: row.question };
  });
}
