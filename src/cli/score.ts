/**
 * `agent-lab score FILE [--per-line OUT]`: mean Exact Match and F1 of a JSONL file whose lines
 * have `prediction` and `answers` (other fields are ignored, and kept in --per-line output).
 * `agent-lab score RUN_DIR`: rescores a run folder in place (rescoreRun, from the eval module).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { FileFormatError, UserError } from "../core/base/errors";
import { exactMatch, f1Score } from "../core/envs/hotpotqa/score";
import { SCORE_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export interface ScoredFile {
  n: number;
  em: number;
  f1: number;
  rows: Record<string, unknown>[];
}

/** Scores every line; a line without a string `prediction` or a list of string `answers` is a FileFormatError. */
export function scoreJsonlFile(file: string): ScoredFile {
  const lines = readFileSync(file, "utf8").split("\n");
  const scored: (Record<string, unknown> & { em: number; f1: number })[] = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new FileFormatError(file, i + 1, `not valid JSON (${(e as Error).message})`);
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw new FileFormatError(file, i + 1, "expected a JSON object");
    const row = raw as Record<string, unknown>;
    if (typeof row.prediction !== "string") throw new FileFormatError(file, i + 1, 'missing "prediction" string');
    const answers = row.answers;
    if (!Array.isArray(answers) || !answers.every((a) => typeof a === "string")) {
      throw new FileFormatError(file, i + 1, 'missing "answers" list of strings');
    }
    scored.push({ ...row, em: exactMatch(row.prediction, answers), f1: f1Score(row.prediction, answers) });
  });
  const n = scored.length;
  const mean = (key: "em" | "f1") => (n ? scored.reduce((s, r) => s + r[key], 0) / n : 0);
  return { n, em: mean("em"), f1: mean("f1"), rows: scored };
}

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SCORE_STEP, argv);
  if (!args) return;
  const { values, positionals } = args;
  if (positionals.length !== 1)
    throw new UserError(
      `give one FILE (JSONL with "prediction" and "answers" on every line) or one RUN_DIR (rescored in place); see agent-lab score --help`,
    );
  const target = positionals[0];
  if (!existsSync(target)) throw new UserError(`${target}: no such file`);
  if (statSync(target).isDirectory()) {
    // a run folder: the eval module rescores its episodes in place and updates its summary
    if (values["per-line"]) throw new UserError("--per-line is for a JSONL file; a run folder is rescored in place");
    const { rescoreRun } = await import("../core/steps/eval/rescore");
    const r = rescoreRun(target);
    console.log(
      `EM ${r.em.toFixed(3)}  F1 ${r.f1.toFixed(3)}  n ${r.n}  (${r.changed} episode${r.changed === 1 ? "" : "s"} changed; episodes.jsonl and summary.json rewritten)`,
    );
    return;
  }
  const result = scoreJsonlFile(target);
  if (values["per-line"]) {
    writeFileSync(values["per-line"], result.rows.map((r) => JSON.stringify(r) + "\n").join(""));
  }
  console.log(`EM ${result.em.toFixed(3)}  F1 ${result.f1.toFixed(3)}  n ${result.n}`);
}
