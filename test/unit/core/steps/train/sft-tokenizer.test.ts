import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, STAND_IN_TOKENIZER } from "../../../../../src/core/base/chat";
import { loadConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { trainSft } from "../../../../../src/core/steps/train";
import { checkSftTokenizer, readSftData } from "../../../../../src/core/steps/train/sft-data";
import { FAST_RETRY, localWorld, type LocalWorld } from "./helpers";

function sftFolder(tokenizer: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-lab-sft-tok-"));
  writeFileSync(
    join(dir, "sft.jsonl"),
    JSON.stringify({ id: "q1", prompt: [1, 2, 3], tokens: [4, 5], sampled: [1, 1] }) + "\n",
  );
  if (tokenizer !== undefined)
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ status: "done", fingerprint: { tokenizer } }));
  return dir;
}

describe("train: SFT data must be tokenized by the trained model's tokenizer", () => {
  it("refuses offline-tokenizer traces for a Tinker model, naming both", () => {
    const data = readSftData(sftFolder("models@1234abcd"));
    assert.equal(data.tokenizer, "models@1234abcd");
    assert.throws(
      () => checkSftTokenizer(data, "tinker", "Qwen/Qwen3.5-4B"),
      (e: Error) =>
        /tokenized with "models@1234abcd"/.test(e.message) &&
        /Qwen\/Qwen3\.5-4B needs its own tokenizer/.test(e.message),
    );
  });

  it("accepts the model's own tokenizer (also with a template override), any tokenizer on the local backend, and data without a manifest", () => {
    checkSftTokenizer(readSftData(sftFolder("Qwen/Qwen3.5-4B")), "tinker", "Qwen/Qwen3.5-4B");
    checkSftTokenizer(readSftData(sftFolder("Qwen/Qwen3.5-4B+template:abcd")), "tinker", "Qwen/Qwen3.5-4B");
    checkSftTokenizer(readSftData(sftFolder("models@1234abcd")), "local", "agent-lab/local-tiny");
    checkSftTokenizer(readSftData(sftFolder(undefined)), "tinker", "Qwen/Qwen3.5-4B");
  });
});

describe("train: an explicit --tokenizer (a rehearsal's stand-in) must be the one the data records", function () {
  this.timeout(60_000);
  let world: LocalWorld;
  let standIn: string;
  before(async () => {
    world = await localWorld("sft-stand-in");
    standIn = (await offlineTokenizer("qwen3")).name;
  });
  after(async () => world?.close());

  it("accepts exactly the recorded tokenizer on any backend; refuses another one, or data that records none", () => {
    checkSftTokenizer(readSftData(sftFolder("models@1234abcd")), "tinker", "Qwen/Qwen3.5-4B", "models@1234abcd");
    assert.throws(
      () =>
        checkSftTokenizer(readSftData(sftFolder("Qwen/Qwen3.5-4B")), "tinker", "Qwen/Qwen3.5-4B", "models@1234abcd"),
      (e: Error) =>
        e instanceof UserError &&
        /tokenized with "Qwen\/Qwen3\.5-4B", not with the --tokenizer given \("models@1234abcd"\)/.test(e.message),
    );
    assert.throws(
      () => checkSftTokenizer(readSftData(sftFolder("models@1234abcd")), "local", "agent-lab/local-tiny", "other@5678"),
      /not with the --tokenizer given/,
    );
    assert.throws(
      () => checkSftTokenizer(readSftData(sftFolder(undefined)), "tinker", "Qwen/Qwen3.5-4B", "models@1234abcd"),
      /no sft-data manifest recording its tokenizer/,
    );
  });

  it("trains Qwen3.5-4B through the Tinker client on stand-in data with --tokenizer offline:qwen3 and records it; without it the data is refused before any request", async () => {
    const requests: string[] = [];
    const spy: typeof fetch = (input, init) => {
      requests.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const data = sftFolder(standIn);
    // The tinker code path (the recipe's model, its prices) against the local backend, as a rehearsal runs it.
    const base = {
      workspaceDir: world.root,
      config: loadConfig(world.root, { loraRank: 4 }),
      data,
      epochs: 1,
      batch: 1,
      lr: 0.01,
      backend: "tinker",
      baseUrl: world.backend.url,
      apiKey: "tml-test",
      retry: FAST_RETRY,
      fetch: spy,
      command: ["test"],
    };
    await assert.rejects(
      trainSft({ ...base, name: "no-flag" }),
      (e: Error) => e instanceof UserError && /Qwen\/Qwen3\.5-4B needs its own tokenizer's ids/.test(e.message),
    );
    assert.equal(requests.length, 0, "refused before anything was sent");
    assert.equal(existsSync(join(world.root, "runs", "no-flag")), false);

    const result = await trainSft({ ...base, name: "stand-in", tokenizer: STAND_IN_TOKENIZER });
    assert.equal(result.status, "done");
    assert.ok(requests.some((u) => u.endsWith("/forward_backward")));
    const manifest = JSON.parse(readFileSync(join(result.runDir, "manifest.json"), "utf8")) as {
      tokenizer: string;
      base_model: string;
      backend: string;
    };
    assert.deepEqual(
      [manifest.tokenizer, manifest.base_model, manifest.backend],
      [standIn, "Qwen/Qwen3.5-4B", "tinker"],
    );
  });
});
