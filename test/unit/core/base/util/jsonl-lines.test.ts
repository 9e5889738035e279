/**
 * Every JSONL reader names the line a bad row is on, counting blank lines (before, the row number
 * was reported, one line too early after a blank line).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRegistry } from "../../../../../src/core/base/checkpoints/registry";
import { loadSplit } from "../../../../../src/core/base/data/splits";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { HeldOutQuestions } from "../../../../../src/core/steps/sft/held-out";
import { readSftRows } from "../../../../../src/core/steps/sft/sft-files";
import { parseJsonlLines } from "../../../../../src/core/base/util/jsonl";
import { fakeRecord } from "../runs/fakes";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

describe("JSONL line numbers after blank lines", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-jsonl-lines-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("parseJsonlLines gives each row its line in the file", () => {
    assert.deepEqual(parseJsonlLines('{"a":1}\n\n  \n{"a":2}\n', "f.jsonl"), [
      { value: { a: 1 }, line: 1 },
      { value: { a: 2 }, line: 4 },
    ]);
    assert.throws(
      () => parseJsonlLines('{"a":1}\n\n{oops}\n', "f.jsonl"),
      (e: unknown) => e instanceof FileFormatError && e.message.startsWith("f.jsonl:3: not valid JSON"),
    );
  });

  const question = { id: "q1", question: "Who?", answers: ["x"], type: "bridge", level: "easy" };
  const readers: [string, string, (file: string) => unknown, RegExp][] = [
    ["a split", "val.jsonl", (file) => loadSplit(join(file, ".."), "val"), /val\.jsonl:3: expected \{"id"/],
    [
      "episodes.jsonl",
      "episodes.jsonl",
      (file) => readEpisodes(join(file, ".."), environmentMetrics),
      /episodes\.jsonl:3: episode record has no "id"/,
    ],
    [
      "the checkpoint registry",
      "checkpoints.jsonl",
      (file) => readRegistry(file),
      /checkpoints\.jsonl:3: a checkpoint entry needs/,
    ],
    ["sft.jsonl", "sft.jsonl", (file) => readSftRows(file), /sft\.jsonl:3: missing string "id"/],
    [
      "held-out questions",
      "test.jsonl",
      (file) => HeldOutQuestions.fromDataDir(join(file, "..")),
      /test\.jsonl:3: expected "id" and "question" strings/,
    ],
  ];
  readers.forEach(([what, name, read, message], i) => {
    it(`${what}: a bad row on line 3, after a blank line 2`, () => {
      const sub = join(dir, `r${i}`);
      mkdirSync(sub);
      const file = join(sub, name);
      const good: unknown =
        (
          {
            "episodes.jsonl": fakeRecord("q1"),
            "checkpoints.jsonl": { name: "a", sampler_path: "s", state_path: "t" },
            "sft.jsonl": { id: "q1", prompt: [1, 2], tokens: [3], sampled: [1], logprobs: null },
          } as Record<string, unknown>
        )[name] ?? question;
      // The last line ends with a newline, so readers that skip a torn tail still read it.
      writeFileSync(file, `${JSON.stringify(good)}\n\n{"not": "a row"}\n`);
      assert.throws(
        () => read(file),
        (e: unknown) => e instanceof FileFormatError && message.test(e.message),
        what,
      );
    });
  });
});
