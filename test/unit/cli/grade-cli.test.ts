/** `agent-lab grade --env gsm8k FILE [--per-line OUT]`, run as the real CLI on real GSM8K answers. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireSharedData } from "../../helpers/shared-data";
import { tempDir } from "../core/base/data/helpers";
import { runCli } from "./cli-process";

describe("cli: agent-lab grade --env gsm8k", function () {
  let dir: ReturnType<typeof tempDir>;
  let answers: string[];
  before(function () {
    const file = requireSharedData(this, "gsm8k", "test.jsonl");
    answers = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .slice(0, 4)
      .map((l) => (JSON.parse(l) as { answer: string }).answer);
    dir = tempDir("grade");
  });
  after(() => dir?.remove());

  it("prints accuracy and writes one verdict per record, line numbers exact across a blank line", async () => {
    const ref = (i: number) => answers[i].split("#### ").pop()!;
    const lines = [
      JSON.stringify({ id: "a", response: `So \\boxed{${ref(0)}}`, answer: answers[0] }),
      "",
      JSON.stringify({ id: "b", response: `The answer is ${ref(1)}.`, answer: answers[1] }),
      JSON.stringify({ id: "c", response: `\\boxed{\\$${ref(2)}.00}`, answer: answers[2] }),
      JSON.stringify({ id: "d", response: `\\boxed{${Number(ref(3)) + 1}}`, answer: answers[3] }),
    ];
    const file = join(dir.path, "replies.jsonl");
    const out = join(dir.path, "verdicts.jsonl");
    writeFileSync(file, lines.join("\n") + "\n");
    const r = await runCli(["grade", "--env", "gsm8k", file, "--per-line", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), "accuracy 0.500 (2/4)");
    const rows = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      rows.map((x) => [x.id, x.line, x.correct, x.extracted]),
      [
        ["a", 1, true, ref(0)],
        ["b", 3, false, null],
        ["c", 4, true, `\\$${ref(2)}.00`],
        ["d", 5, false, String(Number(ref(3)) + 1)],
      ],
    );
  });

  it("bad input: one line naming file:line and the missing field; unknown --env lists the known ones", async () => {
    const file = join(dir.path, "bad.jsonl");
    writeFileSync(
      file,
      JSON.stringify({ response: "\\boxed{1}", answer: "#### 1" }) +
        "\n\n" +
        JSON.stringify({ answer: "#### 1" }) +
        "\n",
    );
    let r = await runCli(["grade", "--env", "gsm8k", file]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `agent-lab grade: ${file}:3: missing "response" string`);
    writeFileSync(file, JSON.stringify({ response: "x", answer: "no final line" }) + "\n");
    r = await runCli(["grade", "--env", "gsm8k", file]);
    assert.equal(r.stderr.trim(), `agent-lab grade: ${file}:1: "answer" has no "#### N" final answer line`);
    r = await runCli(["grade", "--env", "nope", file]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `agent-lab grade: --env must be one of gsm8k, got "nope"`);
    r = await runCli(["grade", file]);
    assert.match(
      r.stderr.trim(),
      /^agent-lab grade: --env is required: the environment whose grader to use \(one of gsm8k\)$/,
    );
    r = await runCli(["grade", "--env", "gsm8k", join(dir.path, "missing.jsonl")]);
    assert.match(r.stderr.trim(), /missing\.jsonl: no such file$/);
  });
});
