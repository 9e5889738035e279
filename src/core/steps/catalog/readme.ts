/**
 * The README's command tables, rendered from the step specs: `npm run docs:steps` writes them
 * between the markers, and a unit test fails when the README holds anything else there.
 */
import { stepMarkdown, type StepSpec } from "../specs/spec";

export const STEPS_BEGIN = "<!-- steps:begin -->";
export const STEPS_END = "<!-- steps:end -->";

/** Every step's table, in the order given, with the markers. */
export function stepsBlock(steps: readonly StepSpec[]): string {
  const note =
    "<!-- generated from src/core/steps/catalog/catalog.ts by `npm run docs:steps`; edit the specs, not this block -->";
  return [STEPS_BEGIN, note, "", ...steps.map((s) => stepMarkdown(s) + "\n"), STEPS_END].join("\n");
}

/** The text between (and including) the markers, or undefined when the README has none. */
export function currentStepsBlock(readme: string): string | undefined {
  const begin = readme.indexOf(STEPS_BEGIN);
  const end = readme.indexOf(STEPS_END, begin);
  if (begin < 0 || end < 0) return undefined;
  return readme.slice(begin, end + STEPS_END.length);
}

/** The README with its block replaced; throws when the markers are missing. */
export function withStepsBlock(readme: string, block: string): string {
  const current = currentStepsBlock(readme);
  if (current === undefined) throw new Error(`README.md has no ${STEPS_BEGIN} … ${STEPS_END} block to fill`);
  return readme.replace(current, () => block);
}
