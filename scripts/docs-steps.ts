/**
 * `npm run docs:steps`: rewrites README.md's command tables (between <!-- steps:begin --> and
 * <!-- steps:end -->) from the step specs, so the README says what `--help` says.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STEPS } from "../src/core/steps/catalog/catalog";
import { stepsBlock, withStepsBlock } from "../src/core/steps/catalog/readme";

const file = join(__dirname, "..", "README.md");
const before = readFileSync(file, "utf8");
const after = withStepsBlock(before, stepsBlock(STEPS));
if (after === before) {
  console.log("README.md: command tables already match the step specs");
} else {
  writeFileSync(file, after);
  console.log(`README.md: command tables rewritten from ${STEPS.length} step specs`);
}
