import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { readWorkspaceConfig } from "../../../../../src/core/base/config";
import { lintConfigText } from "../../../../../src/core/views/prompt-lint";

describe("prompt-lint: agent-lab.json", () => {
  it("accepts a valid file (and $schema)", () => {
    const text = JSON.stringify(
      {
        $schema: "x",
        model: "Qwen/Qwen3.5-4B",
        topK: 5,
        budgetUsd: 2.5,
        prices: { "A/B": { prefill: 1, sample: 2, train: 3 } },
      },
      null,
      2,
    );
    assert.deepEqual(lintConfigText(text), []);
  });

  it("reports every mistake at once, each on its key or value, with the CLI's wording", () => {
    const text = '{\n  "topk": 3,\n  "maxSearches": 0,\n  "model": 4,\n  "prices": {"A/B": {"prefill": -1}}\n}\n';
    const issues = lintConfigText(text);
    const covered = issues.map((i) => text.slice(i.start, i.end));
    assert.deepEqual(
      issues.map((i) => i.code),
      ["unknown-setting", "invalid-setting", "invalid-setting", "invalid-setting"],
    );
    assert.deepEqual(covered, ['"topk"', "0", "4", '{"A/B": {"prefill": -1}}']);
    // Same rule and message as the CLI, which stops at the first one.
    const dir = mkdtempSync(join(tmpdir(), "lint-cfg-"));
    writeFileSync(join(dir, "agent-lab.json"), text);
    assert.throws(
      () => readWorkspaceConfig(dir),
      (e: FileFormatError) => e.message.endsWith(issues[0].message),
    );
    assert.match(issues[1].message, /"maxSearches" must be a positive integer/);
    assert.match(issues[3].message, /prefill/);
  });

  it("reports broken JSON where it breaks", () => {
    const text = '{\n  "topK": 3,\n}\n';
    const issues = lintConfigText(text);
    assert.equal(issues[0].code, "invalid-json");
    assert.equal(text.slice(0, issues[0].start).split("\n").length, 3);
    assert.equal(lintConfigText("[1]")[0].code, "invalid-setting");
  });

  it("warns when systemPromptFile names a file that does not exist", () => {
    const dir = mkdtempSync(join(tmpdir(), "lint-cfg-"));
    mkdirSync(join(dir, "prompts"));
    writeFileSync(join(dir, "prompts", "system.md"), "x");
    assert.deepEqual(lintConfigText('{"systemPromptFile": "prompts/system.md"}', { workspaceDir: dir }), []);
    const text = '{"systemPromptFile": "prompts/nope.md"}';
    const [issue] = lintConfigText(text, { workspaceDir: dir });
    assert.equal(issue.code, "missing-prompt-file");
    assert.equal(text.slice(issue.start, issue.end), '"prompts/nope.md"');
  });
});
