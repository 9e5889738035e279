import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSftTokenizer, readSftData } from "../../../../src/core/train/sft-data";

function sftFolder(tokenizer: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-lab-sft-tok-"));
  writeFileSync(join(dir, "sft.jsonl"), JSON.stringify({ id: "q1", prompt: [1, 2, 3], tokens: [4, 5], sampled: [1, 1] }) + "\n");
  if (tokenizer !== undefined) writeFileSync(join(dir, "manifest.json"), JSON.stringify({ status: "done", fingerprint: { tokenizer } }));
  return dir;
}

describe("train: SFT data must be tokenized by the trained model's tokenizer", () => {
  it("refuses offline-tokenizer traces for a Tinker model, naming both", () => {
    const data = readSftData(sftFolder("models@1234abcd"));
    assert.equal(data.tokenizer, "models@1234abcd");
    assert.throws(() => checkSftTokenizer(data, "tinker", "Qwen/Qwen3.5-4B"), (e: Error) =>
      /tokenized with "models@1234abcd"/.test(e.message) && /Qwen\/Qwen3\.5-4B needs its own tokenizer/.test(e.message));
  });

  it("accepts the model's own tokenizer (also with a template override), any tokenizer on the local backend, and data without a manifest", () => {
    checkSftTokenizer(readSftData(sftFolder("Qwen/Qwen3.5-4B")), "tinker", "Qwen/Qwen3.5-4B");
    checkSftTokenizer(readSftData(sftFolder("Qwen/Qwen3.5-4B+template:abcd")), "tinker", "Qwen/Qwen3.5-4B");
    checkSftTokenizer(readSftData(sftFolder("models@1234abcd")), "local", "agent-lab/local-tiny");
    checkSftTokenizer(readSftData(sftFolder(undefined)), "tinker", "Qwen/Qwen3.5-4B");
  });
});
