import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DEFAULT_CONFIG, mergeConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { defaultSystemPromptFile } from "../../../../../src/core/harness/prompts";
import {
  countPromptTokens,
  estimatePromptPrefill,
  promptHoverMarkdown,
  promptLensSummary,
  promptText,
  promptTokenizer,
  tokenLimitIssue,
} from "../../../../../src/core/views/prompt-lint";
import { LOCAL_BACKEND_MODEL } from "../../../../../src/core/steps/eval/backend-model";

describe("prompt-lint: token count and prefill estimate", function () {
  this.timeout(60_000); // first tokenizer load on a busy machine

  it("counts the prompt as the harness sends it (trailing whitespace dropped) and caches the tokenizer", async () => {
    const tok = await promptTokenizer();
    assert.equal(await promptTokenizer(), tok);
    const text = readFileSync(defaultSystemPromptFile(), "utf8");
    const n = countPromptTokens(tok, text).count;
    assert.equal(n, tok.encode(text.trimEnd()).length);
    assert.equal(countPromptTokens(tok, text + "\n\n   \n").count, n);
    assert.ok(n > 100 && n < 400, `default prompt is ${n} tokens`);
  });

  it("marks the text past the limit, and nothing under it", async () => {
    const tok = await promptTokenizer();
    const text = readFileSync(defaultSystemPromptFile(), "utf8");
    const all = countPromptTokens(tok, text);
    assert.equal(tokenLimitIssue(countPromptTokens(tok, text, all.count), all.count, text), undefined);
    const limit = 50;
    const over = countPromptTokens(tok, text, limit);
    const issue = tokenLimitIssue(over, limit, text);
    assert.ok(issue);
    assert.equal(issue.code, "token-limit");
    assert.match(issue.message, new RegExp(`${all.count} tokens, over the limit of ${limit}`));
    // The marked text starts exactly where the first `limit` tokens end.
    assert.equal(tok.encode(text.slice(0, issue.start)).length, limit);
    assert.equal(issue.end, promptText(text).length);
  });

  it("estimates prefill per episode as tokens × 3 turns × the model's prefill price", () => {
    const e = estimatePromptPrefill(200, mergeConfig({}));
    assert.equal(e.model, DEFAULT_CONFIG.model);
    assert.equal(e.turns, 3);
    assert.equal(e.prefillPrice, 0.33);
    assert.ok(Math.abs(e.usdPerEpisode - (200 * 3 * 0.33) / 1e6) < 1e-12);
    const md = promptHoverMarkdown(200, e, 1000);
    assert.match(md, /200 tokens/);
    assert.match(md, /per episode/);
    assert.match(md, /estimate/i);
    assert.throws(() => estimatePromptPrefill(200, mergeConfig({ model: "Unpriced/Model" })), UserError);
    assert.match(promptHoverMarkdown(200, { error: "no price" }, 1000), /No cost estimate: no price/);
    assert.equal(
      promptLensSummary(200, e),
      "200 tokens · ≈ $0.00020 prefill per episode on Qwen/Qwen3.5-4B (estimate)",
    );
    assert.match(promptLensSummary(200, { error: "no price" }), /^200 tokens \(no cost estimate/);
  });

  it("prices the prompt on the model the jobs' backend samples from: the local backend's tiny model is free", () => {
    const config = mergeConfig({});
    const local = estimatePromptPrefill(200, config, "local");
    assert.equal(local.model, LOCAL_BACKEND_MODEL);
    assert.equal(local.usdPerEpisode, 0);
    assert.equal(
      promptLensSummary(200, local),
      `200 tokens · ≈ $0 prefill per episode on ${LOCAL_BACKEND_MODEL} (estimate)`,
    );
    assert.equal(estimatePromptPrefill(200, config, "transformers").model, config.localModel);
    assert.equal(estimatePromptPrefill(200, config, "tinker").model, config.model);
  });
});
