/**
 * The inputs of the task filters, read with their line numbers so every problem names file:line:
 * candidates (`{problem, solution}` per line, from a generator or anywhere else) and eval items
 * (`{question, answer}` per line, e.g. a math environment's test file; `problem` is accepted for `question`).
 */
import { existsSync, readFileSync } from "node:fs";
import { FileFormatError } from "../errors";

export interface Candidate {
  /** 1-based line in the candidates file. */
  line: number;
  problem: string;
  solution: string;
}

export interface EvalItem {
  line: number;
  question: string;
}

/** Non-blank lines parsed as JSON objects; a bad line is a FileFormatError naming file:line. */
function readObjects(file: string, what: string): { line: number; row: Record<string, unknown> }[] {
  if (!existsSync(file)) throw new FileFormatError(file, undefined, `${what} file not found`);
  const rows: { line: number; row: Record<string, unknown> }[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, i) => {
      if (!text.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (e) {
        throw new FileFormatError(file, i + 1, `not valid JSON (${(e as Error).message})`);
      }
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw new FileFormatError(file, i + 1, "expected a JSON object");
      rows.push({ line: i + 1, row: raw as Record<string, unknown> });
    });
  return rows;
}

export function readCandidates(file: string): Candidate[] {
  return readObjects(file, "candidates").map(({ line, row }) => {
    for (const key of ["problem", "solution"] as const) {
      if (typeof row[key] !== "string" || !(row[key] as string).trim()) {
        throw new FileFormatError(
          file,
          line,
          `"${key}" must be a non-empty string (each line is {"problem": …, "solution": "def solution(): …"})`,
        );
      }
    }
    return { line, problem: row.problem as string, solution: row.solution as string };
  });
}

export function readEvalItems(file: string): EvalItem[] {
  return readObjects(file, "eval items").map(({ line, row }) => {
    const question = row.question ?? row.problem;
    if (typeof question !== "string")
      throw new FileFormatError(file, line, 'expected a "question" (or "problem") string');
    return { line, question };
  });
}
