/**
 * The one episode loop every environment runs in: eval, SFT data collection and RL rollouts all
 * call `runEnvEpisode`, so the model is trained in exactly the environment it is scored in. The
 * environment (src/core/envs/) gives the first prompt, reads each reply and scores the episode; the
 * loop owns everything else, in one place:
 *
 * - Every token after the prompt carries a `sampled` flag (1 = the model wrote it, 0 = the harness
 *   inserted it) and the sampler's logprob (0 for inserted tokens). SFT and RL learn only from
 *   sampled tokens. A policy that gives no logprobs for some turn marks the episode `hasLogprobs:
 *   false` (it cannot feed RL).
 * - A turn cut off by the token limit is recorded as sampled, with no end token added, and handed to
 *   the environment with stopReason "length" (the environment decides: end it as "length" with
 *   reward 0, or grade the raw text, as the cookbook's math environments do).
 * - Some samplers leave the stop token out; the harness inserts it (sampled 0) so the next turn
 *   opens after a closed one.
 * - An observation (a tool's result) is inserted as the next user turn, stitched by hand (see
 *   chat/turns.ts): the model's own tokens are never re-rendered.
 *
 * The first environment's own `runEpisode` (the recipe's signature) is this loop with that environment.
 */
import { SETTING_DEFAULTS } from "../base/config";
import { assertQwenStitching, userTurn } from "../base/chat/turns";
import type { EndReason, EnvEpisode, EnvItem, EpisodeTurn } from "./environment";
import type { Policy } from "./policy";

export type { EndReason, EpisodeTurn } from "./environment";

export interface Episode {
  id: string;
  question: string;
  answers: string[];
  /** Chat-template tokens of the first prompt, generation prompt included. */
  prompt: number[];
  /** Everything after the prompt: model replies and harness turns interleaved. */
  tokens: number[];
  /** Per token: 1 = sampled by the model, 0 = inserted by the harness. */
  sampled: number[];
  /** Per token: the sampler's logprob; 0 for inserted tokens (and for sampled ones when hasLogprobs is false). */
  logprobs: number[];
  /** False when the policy gave no logprobs for some turn: this episode cannot feed RL. */
  hasLogprobs: boolean;
  /** Tool-call arguments in order (a search agent's queries). */
  searches: string[];
  /** The prediction as the environment extracted it; "" when there is none. */
  answer: string;
  end: EndReason;
  /** Tokens sent to the sampler, summed over turns (prefill cost, before any prefix cache). */
  prefill: number;
  /** Tokens the sampler produced. */
  generated: number;
  /** What RL optimises (the environment's reward, e.g. a score when end is "answer", else 0). */
  reward: number;
  /** One value per declared metric (the environment's score; see environment.ts). */
  metrics: Record<string, number>;
  /** The environment's own record fields (absent: none). */
  fields?: Record<string, unknown>;
  turns: EpisodeTurn[];
}

export interface LoopOptions {
  /** Sampling temperature (default 0: greedy, as for eval). */
  temperature?: number;
  /** Token limit per model turn (default from config). */
  maxTokens?: number;
  signal?: AbortSignal;
}

export async function runEnvEpisode(
  policy: Policy,
  item: EnvItem,
  env: EnvEpisode,
  options: LoopOptions = {},
): Promise<Episode> {
  const temperature = options.temperature ?? 0;
  const maxTokens = options.maxTokens ?? SETTING_DEFAULTS.maxTokens;
  const signal = options.signal;
  const tok = policy.tokenizer;
  assertQwenStitching(tok);

  const ep: Episode = {
    id: item.id,
    question: item.question,
    answers: [...item.answers],
    prompt: env.prompt,
    tokens: [],
    sampled: [],
    logprobs: [],
    hasLogprobs: true,
    searches: env.toolCalls,
    answer: "",
    end: "no_action",
    prefill: 0,
    generated: 0,
    reward: 0,
    metrics: {},
    turns: [],
  };
  const add = (tokens: readonly number[], logprobs: readonly number[] | null, sampled: 0 | 1) => {
    ep.tokens.push(...tokens);
    ep.sampled.push(...tokens.map(() => sampled));
    ep.logprobs.push(...(logprobs ?? tokens.map(() => 0)));
  };
  const finish = (end: EndReason): Episode => {
    const score = env.score(end);
    ep.end = end;
    ep.answer = score.prediction;
    ep.reward = score.reward;
    ep.metrics = score.metrics;
    if (score.fields) ep.fields = score.fields;
    return ep;
  };

  for (;;) {
    signal?.throwIfAborted();
    const ids = [...ep.prompt, ...ep.tokens];
    const out = await policy.sample(ids, { temperature, maxTokens, signal });
    signal?.throwIfAborted();
    if (out.logprobs && out.logprobs.length !== out.tokens.length) {
      throw new Error(`policy returned ${out.logprobs.length} logprobs for ${out.tokens.length} tokens`);
    }
    if (!out.logprobs) ep.hasLogprobs = false;
    ep.prefill += ids.length;
    ep.generated += out.tokens.length;

    const turn: EpisodeTurn = {
      start: ep.tokens.length,
      replyEnd: 0,
      end: 0,
      reply: "",
      stopReason: out.stopReason,
      action: "none",
    };
    ep.turns.push(turn);
    add(out.tokens, out.logprobs, 1);
    turn.reply = tok.decode(out.tokens, { skipSpecialTokens: true });
    if (
      out.stopReason !== "length" &&
      (out.tokens.length === 0 || out.tokens[out.tokens.length - 1] !== policy.endToken)
    )
      add([policy.endToken], [0], 0);
    turn.replyEnd = turn.end = ep.tokens.length;

    const answered = env.onReply(turn);
    // A synchronous answer is used as is: no extra turn of the event loop, so in-process runs interleave as before.
    const outcome = answered instanceof Promise ? await answered : answered;
    if ("end" in outcome) return finish(outcome.end);
    add(userTurn(tok, outcome.observation), null, 0);
    turn.end = ep.tokens.length;
  }
}
