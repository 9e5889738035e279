/**
 * The task's answer from what `solution()` returned: a finite int, float, Fraction or Decimal, as a
 * canonical decimal string ("18", "2.5", "0.75"). Anything else (str, bool, None, list, NaN, an int
 * too long to print) is not numeric and the candidate is dropped.
 */
import type { PyValue } from "./sandbox/protocol";

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
