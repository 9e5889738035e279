/**
 * One episode of the research agent: question → `<search>` turns → `<answer>` → reward, recorded
 * token by token. Eval, SFT data collection and RL rollouts all call `runEpisode`, so the model is
 * trained in exactly the environment it is scored in.
 *
 * Every token after the prompt carries a `sampled` flag (1 = the model wrote it, 0 = the harness
 * inserted it) and the sampler's logprob (0 for inserted tokens). SFT and RL learn only from
 * sampled tokens. The end reason is one of:
 * - "answer":    the reply held an `<answer>`; reward = F1 against the gold answers.
 * - "no_action": the reply held neither action (or a search in closed-book mode); reward 0.
 * - "length":    the turn hit maxTokens. Reward 0 even if a complete `<answer>` came before the cut
 *                (the recipe's rule: running out of tokens is a failure, which RL learns to avoid).
 * - "budget":    a search was asked for after the last allowed one; reward 0.
 *
 * Empty query (`<search></search>`, or only whitespace): the searcher is not called; the model
 * gets a one-line hint in the result block and the search counts against the budget (recorded as
 * "" in `searches`), so a model that keeps sending empty queries still ends by "budget".
 */
import { DEFAULT_CONFIG } from "../config";
import { UserError } from "../errors";
import { f1Score } from "../score";
import type { Question } from "../data/question";
import type { SearchHit, Searcher } from "../search/searcher";
import { assertQwenStitching, chatPrompt, userTurn } from "../chat/turns";
import type { Policy, StopReason } from "./policy";
import { parseAction } from "./actions";
import { EMPTY_QUERY, LAST_SEARCH, formatResults, resultBlock } from "./results";
import { loadSystemPrompt } from "./prompts";

/** How an episode ended: one vocabulary, declared with the run files that record it. */
import type { EndReason } from "../runs/run-files";
export type { EndReason };

/** One model turn and the harness text that followed it (offsets index `Episode.tokens`). */
export interface EpisodeTurn {
  /** Where the model's reply starts. */
  start: number;
  /** After the reply's end-of-turn token (sampled, or inserted when the sampler left it out). */
  replyEnd: number;
  /** After the harness's inserted user turn; equals replyEnd on the last turn. */
  end: number;
  /** The reply as text, special tokens removed (what was parsed). */
  reply: string;
  stopReason: StopReason;
  action: "answer" | "search" | "none";
  /** The search query, when the action was a search. */
  query?: string;
  /** Paragraphs returned for that query (text left out: it is in the tokens). */
  hits?: { id: number; title: string; score: number }[];
}

export interface Episode {
  id: string;
  question: string;
  answers: string[];
  /** Chat-template tokens of system prompt + question, generation prompt included. */
  prompt: number[];
  /** Everything after the prompt: model replies and harness turns interleaved. */
  tokens: number[];
  /** Per token: 1 = sampled by the model, 0 = inserted by the harness. */
  sampled: number[];
  /** Per token: the sampler's logprob; 0 for inserted tokens (and for sampled ones when hasLogprobs is false). */
  logprobs: number[];
  /** False when the policy gave no logprobs for some turn: this episode cannot feed RL. */
  hasLogprobs: boolean;
  searches: string[];
  /** The prediction (trimmed `<answer>` content); "" unless end is "answer". */
  answer: string;
  end: EndReason;
  /** Tokens sent to the sampler, summed over turns (prefill cost, before any prefix cache). */
  prefill: number;
  /** Tokens the sampler produced. */
  generated: number;
  /** F1 when end is "answer", else 0. */
  reward: number;
  turns: EpisodeTurn[];
}

export interface EpisodeOptions {
  /** Sampling temperature (default 0: greedy, as for eval). */
  temperature?: number;
  /** No search: the closed-book floor. A search reply then ends the episode as "no_action". */
  closedBook?: boolean;
  /** Paragraphs per search (default from config). */
  topK?: number;
  /** Search budget (default from config). */
  maxSearches?: number;
  /** Token limit per model turn (default from config). */
  maxTokens?: number;
  /** System prompt text (default: data/prompts/system.md, or closed-book.md when closedBook). */
  systemPrompt?: string;
  signal?: AbortSignal;
}

const defaultPrompts = new Map<boolean, string>();

function defaultSystemPrompt(closedBook: boolean): string {
  let text = defaultPrompts.get(closedBook);
  if (text === undefined) {
    text = loadSystemPrompt(undefined, { closedBook }).text;
    defaultPrompts.set(closedBook, text);
  }
  return text;
}

export async function runEpisode(
  policy: Policy,
  searcher: Searcher | null,
  question: Question | Pick<Question, "id" | "question" | "answers">,
  options: EpisodeOptions = {},
): Promise<Episode> {
  const closedBook = options.closedBook ?? false;
  if (!closedBook && !searcher) throw new UserError("a searcher is needed unless the episode is closed-book");
  const temperature = options.temperature ?? 0;
  const topK = options.topK ?? DEFAULT_CONFIG.topK;
  const maxSearches = options.maxSearches ?? DEFAULT_CONFIG.maxSearches;
  const maxTokens = options.maxTokens ?? DEFAULT_CONFIG.maxTokens;
  const signal = options.signal;
  const tok = policy.tokenizer;
  assertQwenStitching(tok);

  const system = options.systemPrompt ?? defaultSystemPrompt(closedBook);
  const ep: Episode = {
    id: question.id,
    question: question.question,
    answers: [...question.answers],
    prompt: chatPrompt(tok, system, question.question),
    tokens: [],
    sampled: [],
    logprobs: [],
    hasLogprobs: true,
    searches: [],
    answer: "",
    end: "no_action",
    prefill: 0,
    generated: 0,
    reward: 0,
    turns: [],
  };
  const add = (tokens: readonly number[], logprobs: readonly number[] | null, sampled: 0 | 1) => {
    ep.tokens.push(...tokens);
    ep.sampled.push(...tokens.map(() => sampled));
    ep.logprobs.push(...(logprobs ?? tokens.map(() => 0)));
  };
  const finish = (end: EndReason): Episode => {
    ep.end = end;
    ep.reward = end === "answer" ? f1Score(ep.answer, ep.answers) : 0;
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

    const turn: EpisodeTurn = { start: ep.tokens.length, replyEnd: 0, end: 0, reply: "", stopReason: out.stopReason, action: "none" };
    ep.turns.push(turn);
    add(out.tokens, out.logprobs, 1);
    turn.reply = tok.decode(out.tokens, { skipSpecialTokens: true });
    if (out.stopReason === "length") {
      turn.replyEnd = turn.end = ep.tokens.length;
      return finish("length");
    }
    // Some samplers leave the stop token out; the next turn must still open after a closed one.
    if (out.tokens.length === 0 || out.tokens[out.tokens.length - 1] !== policy.endToken) add([policy.endToken], [0], 0);
    turn.replyEnd = turn.end = ep.tokens.length;

    const action = parseAction(turn.reply);
    turn.action = action.kind;
    if (action.kind === "answer") {
      ep.answer = action.text;
      return finish("answer");
    }
    if (action.kind === "none" || closedBook) return finish("no_action");
    turn.query = action.query;
    if (ep.searches.length >= maxSearches) return finish("budget");

    ep.searches.push(action.query);
    let content: string;
    if (action.query === "") {
      content = resultBlock(EMPTY_QUERY);
      turn.hits = [];
    } else {
      const hits: SearchHit[] = searcher!.search(action.query, topK);
      turn.hits = hits.map((h) => ({ id: h.id, title: h.title, score: h.score }));
      content = formatResults(hits);
    }
    if (ep.searches.length === maxSearches) content += `\n${LAST_SEARCH}`;
    add(userTurn(tok, content), null, 0);
    turn.end = ep.tokens.length;
  }
}
