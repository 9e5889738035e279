/**
 * The grader's hash must not depend on which bundle computed it: the CLI, the extension and tsx each
 * print the same function with their own renames and layout.
 */
import * as assert from "node:assert/strict";
import { bundleNeutral, graderSha256 } from "../../../../../src/core/steps/experiments/evaluator";

describe("evaluator: the grader's hash across bundles", () => {
  // The same f1 as two bundles printed it: one renamed a colliding constant (YES_NO → YES_NO2) and a local.
  const inCli = `function f1Score(prediction, answers) {
  const pred = pySplit(normalizeAnswer(prediction));
  const yesNo = YES_NO.has(pred.join(" "));
  return yesNo ? 1 : 0;
}`;
  const inExtension = `function f1Score(prediction, answers) {
    const pred = pySplit(normalizeAnswer2(prediction));
    const yesNo = YES_NO2.has(pred.join(" "));
    return yesNo ? 1 : 0;
  }`;

  // The same function as tsx prints it (the tests): imports called through their module, no whitespace.
  const inTsx = `function f1Score(prediction,answers){const pred=(0,import_python_text.pySplit)((0,import_answer_text.normalizeAnswer)(prediction));const yesNo=YES_NO.has(pred.join(" "));return yesNo?1:0}`;

  it("reads the same text from both bundles and from tsx", () => {
    assert.equal(bundleNeutral(inCli), bundleNeutral(inExtension));
    assert.equal(bundleNeutral(inTsx), bundleNeutral(inCli));
  });

  it("still tells a changed grader apart, and keeps names that merely contain digits", () => {
    assert.notEqual(bundleNeutral(inCli), bundleNeutral(inCli.replace("? 1 : 0", "? 1 : 0.5")));
    // A string literal's text is the grader's (join(" ") and join("") score differently).
    assert.notEqual(bundleNeutral(inCli), bundleNeutral(inCli.replace('join(" ")', 'join("")')));
    assert.equal(bundleNeutral("f1Score(a, 1e308)"), "f1Score(a,1e308)");
  });

  it("hashes the environment's scoring functions through that form", () => {
    const fromCli = { scoringFunctions: [new Function(`return ${inCli}`)() as () => unknown] };
    const fromExtension = { scoringFunctions: [new Function(`return ${inExtension}`)() as () => unknown] };
    assert.equal(graderSha256(fromCli), graderSha256(fromExtension));
    assert.equal(graderSha256({ scoringFunctions: [] }), undefined);
  });
});
