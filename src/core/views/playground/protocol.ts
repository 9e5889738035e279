/**
 * The playground's wire between the extension and `agent-lab playground` (the CLI process that
 * holds the model and the environment; the API key stays in that process's environment). One JSON
 * object per line: requests on its stdin, replies on its stdout, each reply line prefixed so that
 * the command's other output (the local backend's start line) cannot be taken for one.
 */
import type { PolicyInfo } from "../../harness/policy";
import type { ToolDeclaration } from "../../harness/environment";
import type { TraceEpisodeView } from "../trace/trace-view";

export const PLAYGROUND_REPLY_PREFIX = "agent-lab-playground ";

export type PlaygroundQuestionInput = { typed: string } | { split: string; id: string };

export type PlaygroundRequest =
  | { op: "items"; split: string }
  | { op: "start"; question: PlaygroundQuestionInput }
  | { op: "turn"; temperature: unknown; maxTokens: unknown }
  | { op: "cancel" }
  | { op: "save"; name: string }
  | { op: "close" };

/** One model turn's cost (the ledger's prices; 0 for sources that run on this machine). */
export interface TurnCost {
  prefill: number;
  generated: number;
  usd: number;
}

/** The episode so far, as the trace viewer shows it, with each turn's cost. */
export interface PlaygroundEpisodeState {
  view: TraceEpisodeView;
  /** False for a typed question: no gold answer, the saved episode is unscored. */
  scored: boolean;
  /** The environment ended the episode: it can be saved. */
  done: boolean;
  turns: TurnCost[];
  /** The most the next turn can cost at the settings last used. */
  nextTurnMaxUsd: number;
}

export type PlaygroundReply =
  | {
      type: "ready";
      environment: string;
      policy: PolicyInfo;
      systemPrompt: string | undefined;
      tools: ToolDeclaration[];
      splits: string[];
      /** Whether turns are charged (a Tinker model): the panel shows costs then. */
      priced: boolean;
      /** The turn settings the panel starts with. */
      defaults: { temperature: number; maxTokens: number };
    }
  | { type: "items"; split: string; items: { id: string; question: string }[] }
  | { type: "episode"; episode: PlaygroundEpisodeState }
  | { type: "cancelled"; episode: PlaygroundEpisodeState }
  | { type: "saved"; name: string; runDir: string }
  | { type: "error"; message: string; op: string };

export function replyLine(reply: PlaygroundReply): string {
  return PLAYGROUND_REPLY_PREFIX + JSON.stringify(reply);
}

/** A reply read back from one stdout line; undefined for any other line the command printed. */
export function parseReplyLine(line: string): PlaygroundReply | undefined {
  if (!line.startsWith(PLAYGROUND_REPLY_PREFIX)) return undefined;
  return JSON.parse(line.slice(PLAYGROUND_REPLY_PREFIX.length)) as PlaygroundReply;
}
