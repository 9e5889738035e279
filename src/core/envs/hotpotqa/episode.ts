/**
 * One episode of the HotpotQA research agent: question → `<search>` turns → `<answer>` → reward.
 * End reasons:
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
import { SETTING_DEFAULTS } from "../../base/config";
import { chatPrompt, type ChatTokenizer } from "../../base/chat";
import type { Question } from "../../base/data/question";
import { UserError } from "../../base/errors";
import { runEnvEpisode, type Episode, type LoopOptions } from "../../harness/episode";
import type { Policy } from "../../harness/policy";
import { loadSystemPrompt } from "../../harness/prompts";
import { exactMatch, f1Score } from "./score";
import type { SearchHit, Searcher } from "../../base/search/searcher";
import type { EndReason, EnvEpisode, EnvItem, EpisodeScore, EpisodeTurn, TurnOutcome } from "../../harness/environment";
import { parseAction } from "./actions";
import { EMPTY_QUERY, LAST_SEARCH, formatResults, resultBlock } from "./results";

export interface HotpotSettings {
  closedBook: boolean;
  topK: number;
  maxSearches: number;
}

export class HotpotEpisode implements EnvEpisode {
  readonly prompt: number[];
  readonly toolCalls: string[] = [];
  private answer = "";

  constructor(
    private readonly item: EnvItem,
    private readonly searcher: Searcher | null,
    private readonly settings: HotpotSettings,
    tokenizer: ChatTokenizer,
    systemPrompt: string,
  ) {
    if (!settings.closedBook && !searcher)
      throw new UserError("a searcher is needed unless the episode is closed-book");
    this.prompt = chatPrompt(tokenizer, systemPrompt, item.question);
  }

  onReply(turn: EpisodeTurn): TurnOutcome | Promise<TurnOutcome> {
    if (turn.stopReason === "length") return { end: "length" };
    const action = parseAction(turn.reply);
    turn.action = action.kind;
    if (action.kind === "answer") {
      this.answer = action.text;
      return { end: "answer" };
    }
    if (action.kind === "none" || this.settings.closedBook) return { end: "no_action" };
    turn.query = action.query;
    if (this.toolCalls.length >= this.settings.maxSearches) return { end: "budget" };

    this.toolCalls.push(action.query);
    if (action.query === "") {
      turn.hits = [];
      return this.observation(resultBlock(EMPTY_QUERY));
    }
    const hits = this.searcher!.search(action.query, this.settings.topK);
    // An in-process index answers at once (the episode stays synchronous, as before); a remote one later.
    return hits instanceof Promise ? hits.then((h) => this.searched(turn, h)) : this.searched(turn, hits);
  }

  private searched(turn: EpisodeTurn, hits: SearchHit[]): TurnOutcome {
    turn.hits = hits.map((h) => ({ id: h.id, title: h.title, score: h.score }));
    return this.observation(formatResults(hits));
  }

  /** The result block, with the last-search notice when the budget is now spent. */
  private observation(content: string): TurnOutcome {
    return {
      observation: this.toolCalls.length === this.settings.maxSearches ? `${content}\n${LAST_SEARCH}` : content,
    };
  }

  score(end: EndReason): EpisodeScore {
    return { prediction: this.answer, ...answerScore(this.answer, this.item.answers, end) };
  }
}

/** An answer's metrics against the gold answers, and its reward: F1 when the episode ended with it, else 0. */
export function answerScore(
  prediction: string,
  answers: readonly string[],
  end: EndReason | string,
): { metrics: { em: number; f1: number }; reward: number } {
  const f1 = f1Score(prediction, answers);
  return { metrics: { em: exactMatch(prediction, answers), f1 }, reward: end === "answer" ? f1 : 0 };
}

export interface EpisodeOptions extends LoopOptions {
  /** No search: the closed-book floor. A search reply then ends the episode as "no_action". */
  closedBook?: boolean;
  /** Paragraphs per search (default from config). */
  topK?: number;
  /** Search budget (default from config). */
  maxSearches?: number;
  /** System prompt text (default: data/prompts/system.md, or closed-book.md when closedBook). */
  systemPrompt?: string;
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

/** The recipe's episode function: HotpotQA's search agent in the one harness loop. */
export async function runEpisode(
  policy: Policy,
  searcher: Searcher | null,
  question: Question | Pick<Question, "id" | "question" | "answers">,
  options: EpisodeOptions = {},
): Promise<Episode> {
  const closedBook = options.closedBook ?? false;
  const settings: HotpotSettings = {
    closedBook,
    topK: options.topK ?? SETTING_DEFAULTS.topK,
    maxSearches: options.maxSearches ?? SETTING_DEFAULTS.maxSearches,
  };
  const episode = new HotpotEpisode(
    question,
    searcher,
    settings,
    policy.tokenizer,
    options.systemPrompt ?? defaultSystemPrompt(closedBook),
  );
  return runEnvEpisode(policy, question, episode, options);
}
