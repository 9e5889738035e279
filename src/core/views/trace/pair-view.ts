/**
 * One flip of a comparison as a single view: the question, gold answers, and the two runs'
 * episodes aligned turn by turn (turn 1 of both, then turn 2 …), each turn holding the text the
 * model wrote and what the harness inserted after it (the query and the result titles). Built from
 * the trace view of each episode, so its text is the same decoding the trace viewer shows.
 */
import type { TraceEpisodeView, TraceSection } from "./trace-view";
import type { RunViewSpec } from "./run-view";

export interface PairSide {
  /** The run's name (folder). */
  run: string;
  prediction: string;
  /** The run's environment's primary and binary metric values. */
  primary: number;
  binary: number;
  end: string;
  searches: number;
  generated: number;
  /** Why text is shown as token ids (no tokenizer for the run). */
  decodeProblem?: string;
}

export interface PairTurnSide {
  action?: string;
  /** Text the model sampled in this turn. */
  reply: string;
  query?: string;
  /** Titles of the paragraphs the search returned. */
  hits: string[];
  /** Text the harness inserted after the reply (results, turn markers). */
  inserted: string;
}

export interface PairTurn {
  turn: number;
  /** Absent when that episode had ended before this turn. */
  a?: PairTurnSide;
  b?: PairTurnSide;
}

export interface PairView {
  questionId: string;
  question: string;
  answers: string[];
  sides: [PairSide, PairSide];
  /** Whether both episodes began from the same prompt tokens. */
  samePrompt: boolean;
  turns: PairTurn[];
  /** The runs' environment's metric labels and controls (the first run's; a comparison is of one environment). */
  view?: RunViewSpec;
}

function text(ep: TraceEpisodeView, s: TraceSection): string {
  return ep.tokens.texts.slice(s.start, s.end).join("");
}

function turnsOf(ep: TraceEpisodeView): Map<number, PairTurnSide> {
  const out = new Map<number, PairTurnSide>();
  for (const s of ep.sections) {
    if (s.kind === "prompt") continue;
    const side = out.get(s.turn) ?? { reply: "", hits: [], inserted: "" };
    if (s.kind === "reply") {
      side.reply += text(ep, s);
      if (s.action !== undefined) side.action = s.action;
    } else {
      side.inserted += text(ep, s);
      if (s.query !== undefined) side.query = s.query;
      if (s.hits) side.hits.push(...s.hits.map((h) => h.title));
    }
    out.set(s.turn, side);
  }
  return out;
}

function side(ep: TraceEpisodeView, run: string): PairSide {
  return {
    run,
    prediction: ep.prediction,
    primary: ep.primary,
    binary: ep.binary,
    end: ep.end,
    searches: ep.searches.length,
    generated: ep.generated,
    ...(ep.decodeProblem ? { decodeProblem: ep.decodeProblem } : {}),
  };
}

export function pairView(a: TraceEpisodeView, b: TraceEpisodeView, runs: [string, string]): PairView {
  const ta = turnsOf(a);
  const tb = turnsOf(b);
  const last = Math.max(0, ...ta.keys(), ...tb.keys());
  const turns: PairTurn[] = [];
  for (let t = 1; t <= last; t++) {
    const sa = ta.get(t);
    const sb = tb.get(t);
    if (sa || sb) turns.push({ turn: t, ...(sa ? { a: sa } : {}), ...(sb ? { b: sb } : {}) });
  }
  return {
    questionId: a.id,
    question: a.question,
    answers: a.answers,
    sides: [side(a, runs[0]), side(b, runs[1])],
    samePrompt: a.prompt.ids.length === b.prompt.ids.length && a.prompt.ids.every((id, i) => id === b.prompt.ids[i]),
    turns,
    ...(a.view ? { view: a.view } : {}),
  };
}
