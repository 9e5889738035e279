import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError, UserError } from "../../../../src/core/base/errors";
import { defaultSystemPromptFile, loadSystemPrompt, promptSha256 } from "../../../../src/core/harness/prompts";
import { parseAction } from "../../../../src/core/envs/hotpotqa/actions";

describe("harness: system prompts", () => {
  it("ships a research-agent default with one concrete worked example", () => {
    const p = loadSystemPrompt();
    assert.equal(p.file, defaultSystemPromptFile());
    assert.equal(p.text, readFileSync(p.file, "utf8").trimEnd());
    assert.equal(p.sha256, promptSha256(p.text));
    assert.match(p.sha256, /^[0-9a-f]{64}$/);
    // Each example reply is exactly one action the harness parses...
    const replies = p.text
      .split("\n")
      .filter((l) => /^Reply \d+: /.test(l))
      .map((l) => l.replace(/^Reply \d+: /, ""));
    assert.ok(replies.length >= 3);
    const actions = replies.map(parseAction);
    assert.deepEqual(
      actions.map((a) => a.kind),
      [...Array(replies.length - 1).fill("search"), "answer"],
    );
    // ...with concrete words: small models copy placeholders like "keywords" verbatim.
    for (const a of actions) {
      const inside = a.kind === "search" ? a.query : a.kind === "answer" ? a.text : "";
      assert.doesNotMatch(inside, /\b(keywords?|query|your answer|answer here|\.\.\.)\b/i, inside);
    }
  });

  it("ships a closed-book prompt", () => {
    const p = loadSystemPrompt(undefined, { closedBook: true });
    assert.match(p.text, /<answer><\/answer>/);
    assert.doesNotMatch(p.text, /<search>/);
    assert.notEqual(p.sha256, loadSystemPrompt().sha256);
  });

  it("reads a workspace file relative to the workspace, dropping BOM and trailing whitespace", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-prompt-"));
    writeFileSync(join(dir, "my-prompt.md"), "\uFEFFSearch, then answer.\n\n");
    const p = loadSystemPrompt("my-prompt.md", { workspaceDir: dir });
    assert.equal(p.text, "Search, then answer.");
    assert.equal(p.sha256, promptSha256("Search, then answer."));
    assert.equal(p.file, join(dir, "my-prompt.md"));
  });

  it("names the file when it is missing or empty", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-prompt-"));
    assert.throws(
      () => loadSystemPrompt("nope.md", { workspaceDir: dir }),
      (e: Error) => e instanceof UserError && e.message.includes(join(dir, "nope.md")),
    );
    writeFileSync(join(dir, "empty.md"), " \n\n");
    assert.throws(
      () => loadSystemPrompt("empty.md", { workspaceDir: dir }),
      (e: Error) => e instanceof FileFormatError && e.message.includes("empty.md:1"),
    );
  });
});
