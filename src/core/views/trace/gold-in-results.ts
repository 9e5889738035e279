/**
 * "Was a gold answer in what the search returned?" — tells a retrieval failure (the answer never
 * reached the model) from a reading failure (it was in the results and the model missed it).
 *
 * The returned paragraphs are in the episode's harness-inserted tokens after each search turn, so
 * they are decoded from there. A gold answer counts as present when its normalised form (the
 * scorer's normalisation) occurs as whole words in the normalised result text. yes/no answers are
 * not looked for: they never appear as such in a paragraph.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { EpisodeRecord } from "../../base/runs/run-files";
import { containsAnswer, normalizeAnswer } from "../../base/data/answer-text";
import { decodePerToken, REPLACEMENT } from "./token-text";

export type GoldInResults =
  /** A gold answer is in the returned text. */
  | "found"
  /** The episode searched, and no gold answer is in what came back. */
  | "missing"
  /** The episode never searched (or got no results). */
  | "no_search"
  /** The gold answers are yes/no: nothing to look for. */
  | "not_applicable";

/** An episode counts as right for these tallies when its primary metric ≥ 0.5 (the line `agent-lab show` uses). */
export const RIGHT_PRIMARY = 0.5;

const YES_NO = new Set(["yes", "no", "noanswer"]);

type ResultDecoder = Pick<ChatTokenizer, "decode"> & Partial<Pick<ChatTokenizer, "tokenId" | "piecewiseSpecialIds">>;

/**
 * The decoded harness text that followed each search turn (the result blocks). `tokenTexts`: the
 * episode's per-token texts (decodePerToken) when the caller has them already.
 */
export function resultTexts(record: EpisodeRecord, tok: ResultDecoder, tokenTexts?: readonly string[]): string[] {
  const decode = sliceDecoder(record.tokens, tok, tokenTexts);
  if (record.turns && record.turns.length > 0) {
    return record.turns
      .filter((t) => t.action === "search" && t.end > t.reply_end)
      .map((t) => decode(t.reply_end, t.end));
  }
  // No turn boundaries: every inserted run of tokens after the first reply.
  const texts: string[] = [];
  let from = -1;
  record.sampled.forEach((s, i) => {
    if (s === 0) from = from < 0 ? i : from;
    else if (from >= 0) {
      texts.push(decode(from, i));
      from = -1;
    }
  });
  if (from >= 0) texts.push(decode(from, record.tokens.length));
  return texts.filter((t) => t.includes("<result>"));
}

/**
 * tokens[from, to) decoded with special tokens left out. Where the tokenizer decodes piecewise, the
 * tokens' own texts joined (a 20,000-token episode's results: 2-3 ms instead of 24 for decoding
 * them again), unless a character's bytes cross the slice's edge (a piece's text sits on its first
 * token, the rest have "") or a token holds bytes of no whole character (U+FFFD: decoding the run
 * may replace them differently), where the slice is decoded as before.
 */
function sliceDecoder(
  ids: readonly number[],
  tok: ResultDecoder,
  tokenTexts: readonly string[] | undefined,
): (from: number, to: number) => string {
  const decode = (from: number, to: number) => tok.decode(ids.slice(from, to), { skipSpecialTokens: true });
  const specials = tok.piecewiseSpecialIds?.();
  if (!specials) return decode;
  const texts = tokenTexts ?? decodePerToken(tok, ids);
  return (from, to) => {
    if (texts[from] === "" || (to < ids.length && texts[to] === "")) return decode(from, to);
    let out = "";
    for (let i = from; i < to; i++) {
      if (specials.has(ids[i])) continue;
      if (texts[i].includes(REPLACEMENT)) return decode(from, to);
      out += texts[i];
    }
    return out;
  };
}

// The one containment rule (base/data/answer-text.ts), shared with environments' failure labels.
export { containsAnswer };

/** `texts`: the episode's result texts when the caller has decoded them already. */
export function goldInResults(
  record: EpisodeRecord,
  tok: ResultDecoder,
  texts: string[] = resultTexts(record, tok),
): GoldInResults {
  const golds = record.answers.filter((a) => !YES_NO.has(normalizeAnswer(a)));
  if (golds.length === 0) return "not_applicable";
  if (record.searches.length === 0) return "no_search";
  if (texts.length === 0) return "no_search";
  const all = texts.join("\n");
  return golds.some((g) => containsAnswer(all, g)) ? "found" : "missing";
}

/** A run's episodes split by retrieval × reading. */
export interface GoldInResultsCounts {
  episodes: number;
  /** Gold in results and answered right: the pipeline worked. */
  foundRight: number;
  /** Gold in results, answer wrong: a reading failure. */
  foundWrong: number;
  /** Searched, gold never returned, answer right (guessed or known). */
  missingRight: number;
  /** Searched, gold never returned, answer wrong: a retrieval failure. */
  missingWrong: number;
  noSearch: number;
  notApplicable: number;
}

/** `primary`: each episode's primary metric value. */
export function countGoldInResults(rows: readonly { primary: number; gold: GoldInResults }[]): GoldInResultsCounts {
  const c: GoldInResultsCounts = {
    episodes: rows.length,
    foundRight: 0,
    foundWrong: 0,
    missingRight: 0,
    missingWrong: 0,
    noSearch: 0,
    notApplicable: 0,
  };
  for (const r of rows) {
    const right = r.primary >= RIGHT_PRIMARY;
    if (r.gold === "found") right ? c.foundRight++ : c.foundWrong++;
    else if (r.gold === "missing") right ? c.missingRight++ : c.missingWrong++;
    else if (r.gold === "no_search") c.noSearch++;
    else c.notApplicable++;
  }
  return c;
}
