/**
 * Reliability: `agent-lab grade` on replies nesting `\boxed{` `\sqrt{` `\frac{` `\text{` 4,000 deep
 * (which overflowed the LaTeX parser's stack and aborted the whole file with "internal error"):
 * each such line is graded wrong with its reason, every other line is graded, and nothing written
 * before (the input) changes.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gradeReply } from "../../../src/core/envs/gsm8k";
import { tempDir } from "../core/base/data/helpers";
import { runCli } from "../cli/cli-process";

const DEPTH = 4000;
const nested = (open: string) => `\\boxed{${open.repeat(DEPTH)}18${"}".repeat(DEPTH)}}`;
const MACROS = ["\\boxed{", "\\sqrt{", "\\frac{", "\\text{"];

describe("reliability: grade on answers nested 4,000 deep", function () {
  let dir: ReturnType<typeof tempDir>;
  before(() => (dir = tempDir("grade-deep")));
  after(() => dir?.remove());

  it("the GSM8K grader (the eval's too) grades each deep reply wrong with a reason, without a stack overflow", () => {
    for (const open of MACROS) {
      const v = gradeReply(nested(open), "so #### 18");
      assert.equal(v.correct, false, open);
      assert.equal(v.reason, `the answer nests brackets ${DEPTH} deep, over the 100 the grader parses`, open);
    }
    assert.deepEqual(gradeReply("\\boxed{18}", "so #### 18"), { correct: true, extracted: "18", reference: "18" });
  });

  it("grade: the deep lines are graded wrong with a one-line reason each, the rest of the file graded", async () => {
    const file = join(dir.path, "replies.jsonl");
    const out = join(dir.path, "verdicts.jsonl");
    const lines = [
      JSON.stringify({ id: "first", response: "So \\boxed{18}", answer: "#### 18" }),
      ...MACROS.map((open, i) => JSON.stringify({ id: `deep${i}`, response: nested(open), answer: "#### 18" })),
      JSON.stringify({ id: "last", response: "\\boxed{\\text{18}}", answer: "#### 18" }),
    ];
    const input = lines.join("\n") + "\n";
    writeFileSync(file, input);
    const r = await runCli(["grade", "--env", "gsm8k", file, "--per-line", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), "accuracy 0.333 (2/6)");
    assert.equal(
      r.stderr.trim(),
      [2, 3, 4, 5]
        .map(
          (line) =>
            `${file}:${line}: graded wrong: the answer nests brackets ${DEPTH} deep, over the 100 the grader parses`,
        )
        .join("\n"),
    );
    const rows = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      rows.map((x) => [x.id, x.line, x.correct, typeof x.reason]),
      [
        ["first", 1, true, "undefined"],
        ["deep0", 2, false, "string"],
        ["deep1", 3, false, "string"],
        ["deep2", 4, false, "string"],
        ["deep3", 5, false, "string"],
        ["last", 6, true, "undefined"],
      ],
    );
    assert.equal(readFileSync(file, "utf8"), input);
  });
});
