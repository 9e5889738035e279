import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../../../../src/core/envs/config";
import { DEFAULT_ENVIRONMENT, environmentByName, scriptedReader } from "../../../../../src/core/envs/registry";
import { LOCAL_BACKEND_MODEL, makePolicy } from "../../../../../src/core/steps/eval/backends";
import { startLocalBackend } from "../../../../../src/server";

describe("eval/makePolicy", () => {
  it("scripted is the free, offline heuristic reader without logprobs", async () => {
    const p = await makePolicy({ backend: "scripted", config: DEFAULT_CONFIG });
    assert.deepEqual(p.describe(), { kind: "scripted", model: "heuristic-reader", logprobs: false });
    assert.equal(p.endToken, p.tokenizer.tokenId("<|im_end|>"));
    await assert.rejects(
      makePolicy({ backend: "scripted", config: DEFAULT_CONFIG, checkpoint: "tinker://x" }),
      /--model-path needs a backend that loads weights/,
    );
  });

  it("scripted plays the environment folder's own reader (scripted.ts); one without is played by the default's", async () => {
    assert.ok(scriptedReader(DEFAULT_ENVIRONMENT), "the default environment's folder has a scripted reader");
    assert.equal(scriptedReader("gsm8k"), undefined, "gsm8k's folder has none");
    for (const env of [DEFAULT_ENVIRONMENT, "gsm8k", environmentByName("gsm8k")]) {
      const p = await makePolicy({ backend: "scripted", config: DEFAULT_CONFIG, env });
      assert.deepEqual(p.describe(), { kind: "scripted", model: "heuristic-reader", logprobs: false });
    }
  });

  it("local samples through the Tinker client from a real local backend, free and with logprobs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-backends-"));
    const server = await startLocalBackend({ dir, port: 0, seed: 1 });
    try {
      const p = await makePolicy({ backend: "local", config: DEFAULT_CONFIG, localBackendUrl: server.url });
      try {
        assert.deepEqual(p.describe(), { kind: "local-backend", model: LOCAL_BACKEND_MODEL, logprobs: true });
        const prompt = p.tokenizer.encode("<|im_start|>user\nWho wrote Hamlet?<|im_end|>\n<|im_start|>assistant\n");
        const s = await p.sample(prompt, { temperature: 1, maxTokens: 5 });
        assert.ok(s.tokens.length >= 1 && s.tokens.length <= 5);
        assert.equal(s.logprobs?.length, s.tokens.length);
      } finally {
        (p as unknown as { close(): void }).close();
      }
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("local without a backend URL, tinker without a key, transformers with a checkpoint: clear refusals", async () => {
    await assert.rejects(makePolicy({ backend: "local", config: DEFAULT_CONFIG }), /needs a running local backend/);
    const saved = process.env.TINKER_API_KEY;
    delete process.env.TINKER_API_KEY;
    try {
      await assert.rejects(makePolicy({ backend: "tinker", config: DEFAULT_CONFIG }), /TINKER_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.TINKER_API_KEY = saved;
    }
    await assert.rejects(
      makePolicy({ backend: "transformers", config: DEFAULT_CONFIG, checkpoint: "tinker://x" }),
      /local model folder with --model/,
    );
    await assert.rejects(
      makePolicy({ backend: "gpt", config: DEFAULT_CONFIG }),
      /unknown --backend "gpt"; choose one of scripted, tinker, local, transformers/,
    );
  });
});
