/**
 * `agent-lab grade --env NAME FILE [--per-line OUT]`: accuracy of model replies, graded by the
 * environment's reply grader (its Environment's `replyGrader`, found through the registry). FILE is
 * JSONL with `response` (the model's full reply) and `answer` (the reference, as that grader reads it). --per-line writes one JSON line per record: its input line
 * number, `correct`, the extracted answer and the reference (and `reason` when a record was graded
 * wrong without being read in full), plus the record's other fields.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { FileFormatError, UserError } from "../core/base/errors";
import { GRADED_ENVIRONMENTS } from "../core/envs/catalog";
import { ENVIRONMENTS } from "../core/envs/registry";
import type { ReplyGrader } from "../core/harness/environment";
import { GRADE_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

/** The reply grader of the environment called `env`, or the one-line refusal naming those that have one. */
function graderOf(env: string): ReplyGrader {
  const grader = ENVIRONMENTS.find((e) => e.name === env)?.replyGrader;
  if (!grader)
    throw new UserError(`--env ${env}: no grader for this environment (known: ${GRADED_ENVIRONMENTS.join(", ")})`);
  return grader;
}

export interface GradedFile {
  n: number;
  correct: number;
  rows: Record<string, unknown>[];
  /** One line per record graded wrong without being read in full: "FILE:LINE: graded wrong: why". */
  notes: string[];
}

type Verdict = ReturnType<ReplyGrader["grade"]>;

/**
 * One record's verdict. A reply the grader cannot get through (a stack overflow on input nested
 * deeper than its own limits foresee) is graded wrong with the reason, so one line never costs the
 * rest of the file its verdicts.
 */
function gradeOne(grader: ReplyGrader, response: string, answer: string): Verdict {
  try {
    return grader.grade(response, answer);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return { correct: false, extracted: undefined, reference: answer, reason: `could not be graded (${e.message})` };
  }
}

/** Grades every non-blank line; a line that is not a record with string `response` and `answer` is a FileFormatError. */
export function gradeJsonlFile(env: string, file: string): GradedFile {
  const grader = graderOf(env);
  const rows: Record<string, unknown>[] = [];
  const notes: string[] = [];
  let correct = 0;
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, i) => {
      const line = i + 1;
      if (!text.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (e) {
        throw new FileFormatError(file, line, `not valid JSON (${(e as Error).message})`);
      }
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw new FileFormatError(file, line, 'expected a JSON object with "response" and "answer"');
      const row = raw as Record<string, unknown>;
      for (const field of ["response", "answer"]) {
        if (typeof row[field] !== "string") throw new FileFormatError(file, line, `missing "${field}" string`);
      }
      const problem = grader.badAnswer(row.answer as string);
      if (problem) throw new FileFormatError(file, line, problem);
      const verdict = gradeOne(grader, row.response as string, row.answer as string);
      if (verdict.correct) correct++;
      if (verdict.reason) notes.push(`${file}:${line}: graded wrong: ${verdict.reason}`);
      rows.push({
        ...row,
        line,
        correct: verdict.correct,
        extracted: verdict.extracted ?? null,
        reference: verdict.reference,
        ...(verdict.reason ? { reason: verdict.reason } : {}),
      });
    });
  return { n: rows.length, correct, rows, notes };
}

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(GRADE_STEP, argv);
  if (!args) return;
  const { values, positionals } = args;
  if (positionals.length !== 1)
    throw new UserError(
      'give one FILE: JSONL with "response" (the model\'s full reply) and "answer" (the reference answer its environment grades against)',
    );
  const file = positionals[0];
  graderOf(values.env);
  if (!existsSync(file)) throw new UserError(`${file}: no such file`);
  const result = gradeJsonlFile(values.env, file);
  if (values["per-line"]) writeFileSync(values["per-line"], result.rows.map((r) => JSON.stringify(r) + "\n").join(""));
  for (const note of result.notes) console.error(note);
  const accuracy = result.n ? result.correct / result.n : 0;
  console.log(`accuracy ${accuracy.toFixed(3)} (${result.correct}/${result.n})`);
}
