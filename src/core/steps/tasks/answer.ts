/**
 * The task's answer from what `solution()` returned. Numeric tasks (math word problems): a finite int, float,
 * Fraction or Decimal, as a canonical decimal string ("18", "2.5", "0.75"); anything else (str,
 * bool, None, list, NaN, an int too long to print) is not numeric and the candidate is dropped.
 * Text tasks (multi-hop questions, whose answers are names or yes/no): a short plain str.
 */
import type { PyValue } from "./sandbox/protocol";
import type { TaskAnswerFormat } from "../../harness/environment";

/** Decimal places kept for non-integer answers: enough for money and rates, and stable across runs. */
const DECIMALS = 6;

export function numericAnswer(value: PyValue): string | undefined {
  switch (value.type) {
    case "int":
      return /^-?\d+$/.test(value.repr) ? value.repr : undefined;
    case "float":
    case "Decimal":
      return canonical(Number(value.repr));
    case "Fraction": {
      const m = /^(-?\d+)(?:\/(\d+))?$/.exec(value.repr);
      if (!m) return undefined;
      return m[2] === undefined ? m[1] : canonical(Number(m[1]) / Number(m[2]));
    }
    default:
      return undefined;
  }
}

function canonical(x: number): string | undefined {
  if (!Number.isFinite(x)) return undefined;
  const rounded = Number(x.toFixed(DECIMALS));
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

/** What an environment's answers are: numbers (graded numerically) or short texts (graded by EM/F1). */
export type AnswerFormat = TaskAnswerFormat;

/** Longest text answer kept: answers are names, places, yes/no — a paragraph is not an answer. */
export const MAX_TEXT_ANSWER = 80;

/** A str result as its text: the repr's quotes removed; strings that needed escapes are refused. */
export function textAnswer(value: PyValue): string | undefined {
  if (value.type !== "str") return undefined;
  const m = /^'([^'\\]*)'$/.exec(value.repr) ?? /^"([^"\\]*)"$/.exec(value.repr);
  const text = m?.[1].trim();
  return text && text.length <= MAX_TEXT_ANSWER && !text.includes("\n") ? text : undefined;
}

export function answerOf(value: PyValue, format: AnswerFormat): string | undefined {
  return format === "number" ? numericAnswer(value) : textAnswer(value);
}
