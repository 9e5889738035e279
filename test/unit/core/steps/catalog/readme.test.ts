/** The README's command tables are what the step specs render: a drift fails here, naming the fix. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { STEPS } from "../../../../../src/core/steps/catalog/catalog";
import {
  currentStepsBlock,
  stepsBlock,
  withStepsBlock,
  STEPS_BEGIN,
  STEPS_END,
} from "../../../../../src/core/steps/catalog/readme";
import { REPO } from "../../../../helpers/repo";

const README = join(REPO, "README.md");

describe("README command tables", () => {
  it("match the step specs (after changing a spec, run `npm run docs:steps`)", () => {
    const block = currentStepsBlock(readFileSync(README, "utf8"));
    assert.ok(block, `README.md has no ${STEPS_BEGIN} … ${STEPS_END} block`);
    // Not assert.equal on the whole block: the message must say what to do, not dump two pages.
    const expected = stepsBlock(STEPS);
    if (block !== expected) {
      const a = block.split("\n");
      const b = expected.split("\n");
      const i = b.findIndex((line, k) => a[k] !== line);
      assert.fail(
        `README.md's command tables differ from the step specs at block line ${i + 1} (README: ${JSON.stringify(a[i])}, specs: ${JSON.stringify(b[i])}): run \`npm run docs:steps\``,
      );
    }
  });

  it("rendering replaces only the block, and fails without the markers", () => {
    const text = `# T\n\nbefore\n${STEPS_BEGIN}\nstale\n${STEPS_END}\nafter $& $1\n`;
    const next = withStepsBlock(text, stepsBlock(STEPS.slice(0, 1)));
    assert.ok(next.startsWith("# T\n\nbefore\n") && next.endsWith(`${STEPS_END}\nafter $& $1\n`), next);
    assert.ok(next.includes("#### `agent-lab config`") && !next.includes("stale"));
    assert.throws(() => withStepsBlock("# no markers\n", "x"), /no <!-- steps:begin -->/);
  });
});
