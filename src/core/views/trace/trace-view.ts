/**
 * What the trace viewer shows for one episode, computed in the extension (webviews never read files
 * or load tokenizers): every token's text, who wrote it and its logprob; the episode cut into
 * sections (prompt, each model reply, the harness text after it — search results collapsible);
 * the outcome; gold-in-results; and the drift check.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { EnvItem, Environment, TraceAnnotations } from "../../harness/environment";
import type { EpisodeRecord } from "../../base/runs/run-files";
import { roleValues } from "../../base/runs/metrics";
import { environmentMetrics } from "../../envs/catalog";
import { runViewSpec, type RunViewSpec } from "./run-view";
import { checkDrift, type DriftReport, type DriftSettings } from "./drift";
import { goldInResults, resultTexts, type GoldInResults } from "./gold-in-results";
import { decodePerToken } from "./token-text";

export type SectionKind = "prompt" | "reply" | "results" | "harness";

/** A stretch of the token stream; start/end index the episode's `tokens` (prompt: its own ids). */
export interface TraceSection {
  kind: SectionKind;
  /** 1-based model turn; 0 for the prompt. */
  turn: number;
  start: number;
  end: number;
  /** The model's action in this turn (reply sections). */
  action?: string;
  stopReason?: string;
  /** For results sections: the query and the paragraphs returned. */
  query?: string;
  hits?: { id: number; title: string; score: number }[];
}

export interface TokenStream {
  ids: number[];
  /** Decoded text per token ("" for continuation bytes of a character split across tokens). */
  texts: string[];
  /** 1 = the model sampled it, 0 = the harness inserted it. */
  sampled: number[];
  /** Sampler logprob per token, null when the run has none. */
  logprobs: number[] | null;
}

export interface TraceEpisodeView {
  id: string;
  question: string;
  answers: string[];
  prediction: string;
  /** The run's environment's primary and binary metric values (roleValues). */
  primary: number;
  binary: number;
  reward: number;
  end: string;
  searches: string[];
  prefill: number;
  generated: number;
  usd: number;
  prompt: TokenStream;
  tokens: TokenStream;
  sections: TraceSection[];
  sampledCount: number;
  insertedCount: number;
  gold: GoldInResults | "unknown";
  drift: DriftReport | null;
  /** Why tokens are shown as ids only (no tokenizer). */
  decodeProblem?: string;
  /** The environment's notes and marked spans (e.g. an extracted answer and the span it came from). */
  annotations?: TraceAnnotations;
  /** The annotations' spans as token ranges over prompt+tokens (what the stream marks); needs the tokenizer. */
  marks?: AnnotationMark[];
  /** The run's environment's metric labels and trace controls (run-view.ts); absent: not known (all shown). */
  view?: RunViewSpec;
}

/** One annotated span of a reply, as the tokens that hold it. */
export interface AnnotationMark {
  label: string;
  /** [start, end) over prompt+tokens, like the drift ranges. */
  range: [number, number];
}

/**
 * Where each annotated character span of a reply lies in the token stream. A span indexes the
 * reply as the environment read it: its tokens decoded with special tokens left out, which is the
 * concatenation of their per-token texts without the special ones (token-text.ts keeps the
 * concatenation exact across split characters). A span that falls outside its reply is left out.
 */
export function annotationMarks(
  record: EpisodeRecord,
  tok: Pick<ChatTokenizer, "decode">,
  texts: readonly string[],
  spans: TraceAnnotations["spans"],
): AnnotationMark[] {
  const out: AnnotationMark[] = [];
  for (const span of spans) {
    const turn = record.turns?.[span.turn];
    if (!turn || span.end <= span.start) continue;
    let at = 0;
    let first = -1;
    let last = -1;
    for (let i = turn.start; i < turn.reply_end && at < span.end; i++) {
      const text = texts[i] ?? "";
      const special = text !== "" && tok.decode([record.tokens[i]], { skipSpecialTokens: true }) === "";
      if (special) continue;
      const next = at + text.length;
      if (next > span.start && text !== "") {
        if (first < 0) first = i;
        last = i;
      }
      at = next;
    }
    if (first >= 0 && at >= span.end)
      out.push({ label: span.label, range: [record.prompt.length + first, record.prompt.length + last + 1] });
  }
  return out;
}

/** Sections from the harness's turn records, or from runs of the sampled flag when a run has none. */
export function traceSections(record: EpisodeRecord): TraceSection[] {
  const sections: TraceSection[] = [];
  if (record.prompt.length) sections.push({ kind: "prompt", turn: 0, start: 0, end: record.prompt.length });
  if (record.turns && record.turns.length > 0) {
    record.turns.forEach((t, i) => {
      sections.push({
        kind: "reply",
        turn: i + 1,
        start: t.start,
        end: t.reply_end,
        action: t.action,
        stopReason: t.stop_reason,
      });
      if (t.end > t.reply_end) {
        sections.push({
          kind: t.action === "search" ? "results" : "harness",
          turn: i + 1,
          start: t.reply_end,
          end: t.end,
          ...(t.query !== undefined ? { query: t.query } : {}),
          ...(t.hits ? { hits: t.hits } : {}),
        });
      }
    });
    return sections;
  }
  let turn = 0;
  let start = 0;
  for (let i = 1; i <= record.tokens.length; i++) {
    if (i === record.tokens.length || record.sampled[i] !== record.sampled[start]) {
      const sampled = record.sampled[start] === 1;
      if (sampled) turn++;
      sections.push({ kind: sampled ? "reply" : "harness", turn: Math.max(turn, 1), start, end: i });
      start = i;
    }
  }
  return sections;
}

export interface TraceViewOptions {
  /** Run the drift check (re-renders with the template; skipped for list previews). */
  drift?: boolean;
  /** The run's settings the check renders with (drift.ts `driftSettings(manifest)`); absent: a run's default. */
  driftSettings?: DriftSettings;
  /** The run's environment (envs/registry.ts `environmentOfManifest`), for its annotations. */
  environment?: Environment<EnvItem>;
  /**
   * The run's view (run-view.ts), known from the light catalog before the environment's code is
   * loaded (a preview has it too); absent: the environment's, when given.
   */
  view?: RunViewSpec;
}

export function buildTraceView(
  record: EpisodeRecord,
  tok: ChatTokenizer | undefined,
  options: TraceViewOptions = {},
  decodeProblem?: string,
): TraceEpisodeView {
  const texts = (ids: number[]) => (tok ? decodePerToken(tok, ids) : ids.map((id) => `⟨${id}⟩`));
  const sampledCount = record.sampled.reduce((s, f) => s + (f === 1 ? 1 : 0), 0);
  const tokenTexts = texts(record.tokens);
  const view = options.view ?? (options.environment ? runViewSpec(options.environment.name) : undefined);
  const annotations = options.environment?.annotate?.(record as unknown as Record<string, unknown>);
  const marks =
    annotations && tok && annotations.spans.length
      ? annotationMarks(record, tok, tokenTexts, annotations.spans)
      : undefined;
  return {
    id: record.id,
    question: record.question,
    answers: record.answers,
    prediction: record.prediction,
    ...roleValues(
      record,
      options.environment?.metrics ?? (view?.environment ? environmentMetrics(view.environment) : undefined),
    ),
    reward: record.reward,
    end: record.end,
    searches: record.searches,
    prefill: record.prefill,
    generated: record.generated,
    usd: record.usd,
    prompt: { ids: record.prompt, texts: texts(record.prompt), sampled: record.prompt.map(() => 0), logprobs: null },
    tokens: { ids: record.tokens, texts: tokenTexts, sampled: record.sampled, logprobs: record.logprobs },
    sections: traceSections(record),
    sampledCount,
    insertedCount: record.tokens.length - sampledCount,
    // Gold-in-results only where the environment searches: elsewhere there are no results to look in.
    gold:
      view && !view.goldInResults
        ? "not_applicable"
        : tok
          ? goldInResults(record, tok, resultTexts(record, tok, tokenTexts))
          : "unknown",
    drift:
      tok && options.drift !== false
        ? checkDrift(tok, record.prompt, record.tokens, record.sampled, options.driftSettings)
        : null,
    ...(tok ? {} : { decodeProblem: decodeProblem ?? "no tokenizer for this run" }),
    ...(annotations ? { annotations } : {}),
    ...(marks ? { marks } : {}),
    ...(view ? { view } : {}),
  };
}
