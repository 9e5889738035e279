/**
 * Replays pre-written replies instead of sampling a model, so the harness (and anything built on
 * it) can be tested and demonstrated offline, instantly and for free. Replies are a list or a
 * function of the conversation so far; each is encoded as the model would have written it,
 * followed by the end-of-turn token, with a fixed logprob per token.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import { replyTokens } from "../../base/chat/turns";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "../policy";

/** What a reply function sees: the decoded conversation and the index of the turn to write. */
export interface ScriptContext {
  turn: number;
  promptText: string;
  promptTokens: readonly number[];
}

/** A reply as text, or full control over the sample (e.g. to simulate a length stop). */
export type ScriptedReply =
  string | { text: string; stopReason?: "stop" | "length"; omitEndToken?: boolean; noLogprobs?: boolean };

/**
 * An environment's offline stand-in for a model (its folder's optional scripted.ts exports one as
 * SCRIPTED_READER): what `--backend scripted` samples from in that environment. Free, no weights.
 */
export type ScriptedReader = (tokenizer: ChatTokenizer, options: { delayMs?: number }) => Policy;

export interface ScriptedPolicyOptions {
  /** Logprob given to every token (default -0.5). */
  logprob?: number;
  /** Model id to report in manifests (default "scripted"). */
  model?: string;
}

export class ScriptedPolicy implements Policy {
  readonly endToken: number;
  private turn = 0;
  /** Every prompt the harness sent, in order (tests inspect them). */
  readonly prompts: number[][] = [];

  constructor(
    readonly tokenizer: ChatTokenizer,
    private readonly replies: readonly ScriptedReply[] | ((ctx: ScriptContext) => ScriptedReply),
    private readonly options: ScriptedPolicyOptions = {},
  ) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
  }

  async sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    options.signal?.throwIfAborted();
    const turn = this.turn++;
    this.prompts.push([...promptTokens]);
    let reply: ScriptedReply;
    if (typeof this.replies === "function") {
      reply = this.replies({ turn, promptTokens, promptText: this.tokenizer.decode(promptTokens) });
    } else {
      if (turn >= this.replies.length)
        throw new Error(`scripted policy has ${this.replies.length} replies; turn ${turn + 1} was asked for`);
      reply = this.replies[turn];
    }
    const r = typeof reply === "string" ? { text: reply } : reply;
    const stopReason = r.stopReason ?? "stop";
    let tokens: number[];
    if (stopReason === "length") tokens = this.tokenizer.encode(r.text).slice(0, options.maxTokens);
    else if (r.omitEndToken) tokens = this.tokenizer.encode(r.text);
    else tokens = replyTokens(this.tokenizer, r.text);
    const logprob = this.options.logprob ?? -0.5;
    return { tokens, logprobs: r.noLogprobs ? null : tokens.map(() => logprob), stopReason };
  }

  describe(): PolicyInfo {
    return { kind: "scripted", model: this.options.model ?? "scripted", logprobs: true };
  }
}
