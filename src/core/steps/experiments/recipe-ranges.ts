/**
 * The ranges a spec's training recipes take, written once: the spec's reader checks an arm's
 * recipe with them, and a sweep checks every value it gives a recipe with the same ones.
 */
import { OFFSET_MAX, SEED_MAX } from "../specs/common-flags";

export interface NumberRange {
  min?: number;
  max?: number;
  int?: boolean;
  exclusiveMin?: boolean;
}

export const GRPO_RANGES = {
  steps: { int: true, min: 1, max: 100_000 },
  questions: { int: true, min: 1, max: 4096 },
  group: { int: true, min: 2, max: 256 },
  lr: { min: 0, exclusiveMin: true, max: 1 },
  temperature: { min: 0, max: 2 },
  seed: { int: true, min: 0, max: SEED_MAX },
} as const satisfies Record<string, NumberRange>;

export const SFT_RANGES = {
  epochs: { int: true, min: 1, max: 1000 },
  batch: { int: true, min: 1, max: 4096 },
  lr: { min: 0, exclusiveMin: true, max: 1 },
} as const satisfies Record<string, NumberRange>;

/** The first train question an env-train arm starts at. */
export const OFFSET_RANGE = { int: true, min: 0, max: OFFSET_MAX } as const satisfies NumberRange;

/** How a range reads in a refusal: "an integer ≥ 2 ≤ 256". */
export function rangeText(r: NumberRange): string {
  return `${r.int ? "an integer" : "a number"}${r.min !== undefined ? ` ${r.exclusiveMin ? ">" : "≥"} ${r.min}` : ""}${r.max !== undefined ? ` ≤ ${r.max}` : ""}`;
}

/** Whether `v` is a number in the range. */
export function inRange(v: unknown, r: NumberRange): v is number {
  if (typeof v !== "number" || !Number.isFinite(v) || (r.int && !Number.isInteger(v))) return false;
  if (r.min !== undefined && (r.exclusiveMin ? v <= r.min : v < r.min)) return false;
  return !(r.max !== undefined && v > r.max);
}
