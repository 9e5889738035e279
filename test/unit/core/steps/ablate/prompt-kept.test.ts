/**
 * The prompt loop's diff after an in-place edit: each eval keeps the system prompt's text it sent
 * in its run folder (RUN_FILES.systemPrompt), so Compare diffs the two prompts after the file was
 * edited and the run again; a run from before (no kept text) still reads as before.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { sha256Hex } from "../../../../../src/core/base/runs/manifest";
import { runFile } from "../../../../../src/core/base/runs/run-folder";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { loadAblationInputs } from "../../../../../src/core/steps/ablate/ablate";
import { promptDiffs, promptSearchDirs } from "../../../../../src/core/steps/ablate/compare-setup";
import { prepareFixtureTwin } from "../../envs/gsm8k/fixture";
import { scriptedEval } from "../../../../helpers/scripted-eval";

describe("core: each eval keeps the prompt text it sent, and Compare's prompt diff reads it", function () {
  this.timeout(120_000);
  let root: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-prompt-kept-"));
    await prepareFixtureTwin(join(root, "data"), join(root, "raw"));
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("edit the prompt in place, rerun: the diff shows both texts; without the kept text, only the hashes", async () => {
    const tok = await offlineTokenizer("qwen3");
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 64 });
    const promptFile = join(root, "prompts", "mine.md");
    mkdirSync(join(root, "prompts"));
    const first = "Solve the problem step by step.\nPut the final number in \\boxed{}.";
    const second = "Solve the problem step by step.\nCheck the arithmetic once.\nPut the final number in \\boxed{}.";
    const run = async (name: string) => {
      const policy = new ScriptedPolicy(tok, () => "It is \\boxed{3}");
      return scriptedEval({ workspaceDir: root, config, name, split: "val", limit: 2, policy, promptFile });
    };
    writeFileSync(promptFile, `${first}\n`);
    const a = await run("prompt-a");
    writeFileSync(promptFile, `${second}\n`); // edited in place, as the prompt loop does
    const b = await run("prompt-b");

    const kept = readFileSync(runFile(a.runDir, "systemPrompt"), "utf8");
    assert.equal(kept, first, "the text the run sent (trailing newline dropped, as sent)");
    const manifest = JSON.parse(readFileSync(runFile(a.runDir, "manifest"), "utf8")) as {
      system_prompt: { sha256: string };
    };
    assert.equal(sha256Hex(kept), manifest.system_prompt.sha256);

    const searchDirs = promptSearchDirs([a.runDir, b.runDir], root);
    const [d] = promptDiffs(loadAblationInputs([a.runDir, b.runDir]), searchDirs);
    assert.equal(d.baseline.text, first, "the first run's prompt, though its file now holds the second");
    assert.deepEqual(
      d.lines!.filter((l) => l.op !== "same"),
      [{ op: "added", text: "Check the arithmetic once." }],
    );

    // A run from a build before the kept text: the hashes only, as before.
    rmSync(runFile(a.runDir, "systemPrompt"));
    const [old] = promptDiffs(loadAblationInputs([a.runDir, b.runDir]), searchDirs);
    assert.equal(old.baseline.text, null);
    assert.equal(old.other.text, second, "the other prompt is still on disk");
    assert.equal(old.lines, null);
  });
});
