/**
 * The model generator: the generation prompt (data/prompts/gen-tasks.md, or the user's edit) as
 * one user turn, one sampled reply per candidate, parsed by `parseGeneratorReply`. Each draw is
 * seeded by its index, so a resumed generation redraws nothing it already wrote.
 */
import type { Policy } from "../../../harness/policy";
import { drawSeed, type GeneratedCandidate, type TaskGenerator } from "./generator";
import { parseGeneratorReply } from "./reply";

export interface ModelGeneratorOptions {
  policy: Policy;
  promptText: string;
  seed: number;
  temperature: number;
  maxTokens: number;
  /** Bills Tinker (false for the local backend). */
  paid: boolean;
}

export class ModelGenerator implements TaskGenerator {
  readonly id: string;
  readonly paid: boolean;
  private readonly prompt: number[];

  constructor(private readonly o: ModelGeneratorOptions) {
    const info = o.policy.describe();
    this.id = `${info.kind}:${info.model}${info.checkpoint ? `@${info.checkpoint}` : ""} T=${o.temperature} max_tokens=${o.maxTokens} seed=${o.seed}`;
    this.paid = o.paid;
    const tok = o.policy.tokenizer;
    this.prompt = tok.encode(tok.renderChat([{ role: "user", content: o.promptText }], { addGenerationPrompt: true }));
  }

  async generate(index: number, signal?: AbortSignal): Promise<GeneratedCandidate> {
    const s = await this.o.policy.sample(this.prompt, {
      temperature: this.o.temperature,
      maxTokens: this.o.maxTokens,
      seed: drawSeed(this.o.seed, index),
      signal,
    });
    const used = { prefill: this.prompt.length, sampled: s.tokens.length };
    const reply = this.o.policy.tokenizer.decode(s.tokens, { skipSpecialTokens: true });
    const parsed = parseGeneratorReply(reply);
    if ("error" in parsed)
      return {
        ok: false,
        reason: s.stopReason === "length" ? `cut at ${this.o.maxTokens} tokens (${parsed.error})` : parsed.error,
        ...used,
      };
    return { ok: true, draft: parsed, ...used };
  }

  close(): void {
    this.o.policy.close?.();
  }
}
