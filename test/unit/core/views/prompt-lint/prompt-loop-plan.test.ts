import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readWorkspaceConfig } from "../../../../../src/core/base/config";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { defaultSystemPromptFile, loadSystemPrompt } from "../../../../../src/core/harness/prompts";
import {
  baselineForPrompt,
  promptRunBaseName,
  seedWorkspacePrompt,
  type RunCandidate,
} from "../../../../../src/core/views/prompt-lint";

const DEFAULT = defaultSystemPromptFile();
const ws = () => mkdtempSync(join(tmpdir(), "prompt-loop-"));

describe("prompt-lint: prompt loop plan", () => {
  it("seeds prompts/system.md from the default once, records it in agent-lab.json, never overwrites an edit", () => {
    const dir = ws();
    const first = seedWorkspacePrompt({ workspaceDir: dir, configuredFile: "", defaultFile: DEFAULT });
    assert.deepEqual(first, {
      file: join(dir, "prompts", "system.md"),
      relative: "prompts/system.md",
      created: true,
      configUpdated: true,
    });
    assert.equal(readFileSync(first.file, "utf8"), readFileSync(DEFAULT, "utf8"));
    assert.equal(readWorkspaceConfig(dir).systemPromptFile, "prompts/system.md");

    writeFileSync(first.file, "my edit");
    const again = seedWorkspacePrompt({ workspaceDir: dir, configuredFile: "prompts/system.md", defaultFile: DEFAULT });
    assert.equal(again.created, false);
    assert.equal(again.configUpdated, false);
    assert.equal(readFileSync(first.file, "utf8"), "my edit");
  });

  it("adds the key to an existing agent-lab.json without touching the rest of the text", () => {
    const dir = ws();
    const before = '{\n    "topK": 5,\n    "model": "Qwen/Qwen3.5-4B"\n}\n';
    writeFileSync(join(dir, "agent-lab.json"), before);
    seedWorkspacePrompt({ workspaceDir: dir, configuredFile: "", defaultFile: DEFAULT });
    const after = readFileSync(join(dir, "agent-lab.json"), "utf8");
    assert.ok(after.startsWith('{\n    "topK": 5,\n    "model": "Qwen/Qwen3.5-4B"'), after);
    assert.deepEqual(readWorkspaceConfig(dir), {
      topK: 5,
      model: "Qwen/Qwen3.5-4B",
      systemPromptFile: "prompts/system.md",
    });
  });

  it("refuses a broken agent-lab.json and writes nothing", () => {
    const dir = ws();
    writeFileSync(join(dir, "agent-lab.json"), '{\n  "topK": 5,\n');
    assert.throws(
      () => seedWorkspacePrompt({ workspaceDir: dir, configuredFile: "", defaultFile: DEFAULT }),
      (e: FileFormatError) => e instanceof FileFormatError && /agent-lab\.json:3/.test(e.message),
    );
    assert.equal(readFileSync(join(dir, "agent-lab.json"), "utf8"), '{\n  "topK": 5,\n');
    assert.ok(!existsSync(join(dir, "prompts")));
  });

  it("creates a configured prompt file that does not exist yet, leaving the settings alone", () => {
    const dir = ws();
    const s = seedWorkspacePrompt({ workspaceDir: dir, configuredFile: "agent/my.prompt.md", defaultFile: DEFAULT });
    assert.equal(s.created, true);
    assert.equal(s.configUpdated, false);
    assert.ok(existsSync(join(dir, "agent", "my.prompt.md")));
    assert.ok(!existsSync(join(dir, "agent-lab.json")));
  });

  it("names the rerun after the prompt file and its hash", () => {
    const p = loadSystemPrompt();
    assert.equal(promptRunBaseName("/w/prompts/system.md", p.sha256), `prompt-system-${p.sha256.slice(0, 8)}`);
    assert.equal(promptRunBaseName("/w/terse.prompt.md", "abcdef0123"), "prompt-terse-abcdef01");
  });

  it("compares with the newest finished research eval on val that used another prompt", () => {
    const run = (
      name: string,
      updatedMs: number,
      o: { sha?: string; split?: string; closed?: boolean; status?: string; kind?: string } = {},
    ): RunCandidate => ({
      name,
      dir: `/runs/${name}`,
      kind: o.kind ?? "eval",
      status: o.status ?? "done",
      updatedMs,
      manifest: {
        split: { name: o.split ?? "val" },
        system_prompt: { sha256: o.sha ?? "old" },
        search: { closed_book: o.closed ?? false },
        policy: {},
        job: {},
      },
    });
    const rows = [
      run("base", 1),
      run("newer-base", 2),
      run("same-prompt", 9, { sha: "new" }),
      run("test-run", 8, { split: "test" }),
      run("closed", 7, { closed: true }),
      run("running", 6, { status: "running" }),
      { name: "train", dir: "/runs/train", kind: "training", status: "done", updatedMs: 10 },
    ];
    assert.equal(baselineForPrompt(rows, "new")?.name, "newer-base");
    assert.equal(baselineForPrompt([run("same", 1, { sha: "new" })], "new"), undefined);
  });
});
