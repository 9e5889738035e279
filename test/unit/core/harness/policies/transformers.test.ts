/**
 * The transformers.js policy on a real (tiny, random-weight) Qwen3 ONNX model built by
 * scripts/make-tiny-model.sh, checked against PyTorch `generate` decodes made in the same setup.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import {
  createTransformersPolicy,
  type TransformersPolicy,
} from "../../../../../src/core/harness/policies/transformers";
import { REPO } from "../../../../helpers/repo";

interface ReferenceCase {
  name: string;
  prompt_text: string;
  prompt_ids: number[];
  max_new_tokens: number;
  tokens: number[];
  logprobs: number[];
  stop_reason: "stop" | "length";
}

interface Reference {
  generator: string;
  end_token_id: number;
  cases: ReferenceCase[];
}

const MODEL_DIR = process.env.TINY_MODEL_DIR ?? resolve(REPO, ".cache", "tiny-model");

/** Skips the suite with a one-line reason when the tiny model has not been built. */
function requireTinyModel(ctx: Mocha.Context): Reference {
  const file = join(MODEL_DIR, "reference.json");
  if (!existsSync(file)) {
    console.log("      skipped: tiny ONNX model not built (run scripts/make-tiny-model.sh)");
    ctx.skip();
  }
  return JSON.parse(readFileSync(file, "utf8")) as Reference;
}

type Fetch = (input: string | URL, init?: unknown) => Promise<unknown>;

/** Swaps the library's one network entry point for a recorder that refuses every request. */
async function withNetworkRecorder<T>(body: (requests: string[]) => Promise<T>): Promise<T> {
  const { env } = await import("@huggingface/transformers");
  const requests: string[] = [];
  const saved = env.fetch as Fetch;
  env.fetch = (async (input: string | URL) => {
    requests.push(String(input));
    throw new Error("network disabled in this test");
  }) as typeof env.fetch;
  try {
    return await body(requests);
  } finally {
    env.fetch = saved as typeof env.fetch;
  }
}

describe("policies: transformers.js on a tiny local ONNX model", function () {
  let reference: Reference;
  let policy: TransformersPolicy;
  let stopCase: ReferenceCase;

  before(async function () {
    reference = requireTinyModel(this);
    stopCase = reference.cases.find((c) => c.stop_reason === "stop")!;
    assert.ok(stopCase, "reference.json has a case that ends at <|im_end|>");
    policy = await withNetworkRecorder(async (requests) => {
      const loaded = await createTransformersPolicy({ model: MODEL_DIR });
      assert.deepEqual(requests, [], "loading a local folder made network requests");
      return loaded;
    });
  });

  after(async () => {
    await policy?.dispose();
  });

  it("loads the local folder with no network, and a hub id does reach for the network", async function () {
    // The `before` hook already loaded with every request refused and recorded; this shows the
    // recorder really sees the library's requests, so that check can fail.
    const cache = mkdtempSync(join(tmpdir(), "agent-lab-hf-cache-"));
    const { env } = await import("@huggingface/transformers");
    const savedCache = env.cacheDir;
    try {
      await withNetworkRecorder(async (requests) => {
        await assert.rejects(
          createTransformersPolicy({ model: "agent-lab-test/no-such-model", cacheDir: cache }),
          (e: unknown) => e instanceof UserError && /could not load/.test(e.message),
        );
        assert.ok(requests.length > 0 && requests.every((r) => r.includes("agent-lab-test/no-such-model")));
      });
    } finally {
      env.cacheDir = savedCache;
      rmSync(cache, { recursive: true, force: true });
    }
    assert.equal(policy.endToken, reference.end_token_id);
    assert.equal(policy.tokenizer.tokenId("<|im_end|>"), reference.end_token_id);
  });

  it("tokenizes the reference prompts exactly as the Python tokenizer did", function () {
    for (const c of reference.cases) assert.deepEqual(policy.tokenizer.encode(c.prompt_text), c.prompt_ids, c.name);
  });

  it("greedy decoding equals PyTorch generate (tokens, stop reason, logprobs)", async function () {
    for (const c of reference.cases) {
      const s = await policy.sample(c.prompt_ids, { temperature: 0, maxTokens: c.max_new_tokens });
      assert.deepEqual(s.tokens, c.tokens, `${c.name} (reference by ${reference.generator})`);
      assert.equal(s.stopReason, c.stop_reason, c.name);
      assert.ok(s.logprobs && s.logprobs.length === c.logprobs.length, c.name);
      s.logprobs.forEach((lp, i) =>
        assert.ok(Math.abs(lp - c.logprobs[i]) < 1e-4, `${c.name} token ${i}: ${lp} vs ${c.logprobs[i]}`),
      );
    }
  });

  it("stops at <|im_end|>, keeping it as the last token, however many tokens were allowed", async function () {
    const s = await policy.sample(stopCase.prompt_ids, { temperature: 0, maxTokens: 200 });
    assert.equal(s.stopReason, "stop");
    assert.deepEqual(s.tokens, stopCase.tokens);
    assert.equal(s.tokens.at(-1), policy.endToken);
    assert.equal(s.tokens.indexOf(policy.endToken), s.tokens.length - 1);
  });

  it("reports 'length' when maxTokens runs out first", async function () {
    const cut = stopCase.tokens.length - 1;
    const s = await policy.sample(stopCase.prompt_ids, { temperature: 0, maxTokens: cut });
    assert.equal(s.stopReason, "length");
    assert.deepEqual(s.tokens, stopCase.tokens.slice(0, cut));
    assert.equal(s.logprobs?.length, cut);
    // Exactly enough room for the end token is a stop, not a length cut.
    const exact = await policy.sample(stopCase.prompt_ids, { temperature: 0, maxTokens: stopCase.tokens.length });
    assert.equal(exact.stopReason, "stop");
    const none = await policy.sample(stopCase.prompt_ids, { temperature: 0, maxTokens: 0 });
    assert.deepEqual(none, { tokens: [], logprobs: [], stopReason: "length" });
  });

  it("seeded temperature sampling is reproducible, and the seed matters", async function () {
    const prompts = reference.cases.map((c) => c.prompt_ids);
    const run = async (p: TransformersPolicy) => {
      const out = [];
      for (const ids of prompts) out.push(await p.sample(ids, { temperature: 1, maxTokens: 16 }));
      return out;
    };
    const again = await createTransformersPolicy({ model: MODEL_DIR, seed: 0 });
    const other = await createTransformersPolicy({ model: MODEL_DIR, seed: 99 });
    try {
      const fresh = await createTransformersPolicy({ model: MODEL_DIR, seed: 0 });
      const first = await run(fresh);
      await fresh.dispose();
      assert.deepEqual(await run(again), first);
      const different = await run(other);
      assert.notDeepEqual(
        different.map((s) => s.tokens),
        first.map((s) => s.tokens),
      );
      // Sampling really departs from greedy on this model.
      const greedyTokens = reference.cases.map((c) => c.tokens.slice(0, 16));
      assert.notDeepEqual(
        first.map((s) => s.tokens.slice(0, 16)),
        greedyTokens,
      );
      for (const s of first) assert.ok(s.logprobs!.every((lp) => lp <= 0 && Number.isFinite(lp)));
    } finally {
      await again.dispose();
      await other.dispose();
    }
  });

  it("describe() says logprobs are available, and samples carry one per token", async function () {
    assert.deepEqual(policy.describe(), { kind: "transformers", model: basename(MODEL_DIR), logprobs: true });
    const s = await policy.sample(stopCase.prompt_ids, { temperature: 0.7, maxTokens: 8 });
    assert.ok(s.logprobs !== null && s.logprobs.length === s.tokens.length);
  });

  it("concurrent calls are served one at a time with the same results", async function () {
    const [a, b] = await Promise.all(
      reference.cases
        .slice(0, 2)
        .map((c) => policy.sample(c.prompt_ids, { temperature: 0, maxTokens: c.max_new_tokens })),
    );
    assert.deepEqual(a.tokens, reference.cases[0].tokens);
    assert.deepEqual(b.tokens, reference.cases[1].tokens);
  });

  it("an abort signal stops a sample (before or during generation) with an AbortError", async function () {
    const longCase = reference.cases.find((c) => c.stop_reason === "length")!;
    const before = new AbortController();
    before.abort();
    await assert.rejects(policy.sample(longCase.prompt_ids, { temperature: 0, maxTokens: 24, signal: before.signal }), {
      name: "AbortError",
    });
    const during = new AbortController();
    setTimeout(() => during.abort(), 1);
    await assert.rejects(
      policy.sample(longCase.prompt_ids, { temperature: 0, maxTokens: 10_000, signal: during.signal }),
      { name: "AbortError" },
    );
    // The policy still works afterwards.
    const s = await policy.sample(longCase.prompt_ids, { temperature: 0, maxTokens: longCase.max_new_tokens });
    assert.deepEqual(s.tokens, longCase.tokens);
  });

  it("refuses a missing folder and bad options with a UserError", async function () {
    await assert.rejects(createTransformersPolicy({ model: "./no/such/model-folder" }), UserError);
    await assert.rejects(policy.sample([], { temperature: 0, maxTokens: 4 }), UserError);
    await assert.rejects(policy.sample([1, 2], { temperature: -1, maxTokens: 4 }), UserError);
    await assert.rejects(policy.sample([1, 2], { temperature: 0, maxTokens: 2.5 }), UserError);
  });
});
