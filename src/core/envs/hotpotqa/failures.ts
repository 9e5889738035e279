/**
 * HotpotQA's failure labels: every episode with F1 < 1 gets exactly one, the first rule that
 * matches, in this order ("shown" = a paragraph returned by any of the episode's searches; text
 * comparisons use the official answer normalisation, the scorer's):
 *  1. no_answer — it did not end with an answer (sub-label: its end reason);
 *  2. answer_too_long — EM 0, and a gold answer's normalised tokens appear, in order and contiguous,
 *     inside the normalised prediction;
 *  3. no_search — it answered without any search;
 *  4. a yes/no gold answer: stopped_after_one_hop with exactly one search, else misread;
 *  5. misread when a shown paragraph contains a gold answer; else stopped_after_one_hop for a bridge
 *     question with exactly one search; else bad_query.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { containsNormalised } from "../../base/data/answer-text";
import { readJsonlLines } from "../../base/util/jsonl";
import type { EpisodeRecord } from "../../base/runs/run-files";
import type { FailureInput, FailureLabels, FailureVerdict } from "../../harness/failures";
import { exactMatch, f1Score, normalizeAnswer } from "./score";

/** Each question's type ("bridge", "comparison"), by id, from the prepared splits. */
export interface HotpotFailureData {
  types: ReadonlyMap<string, string>;
}

const YES_NO = new Set(["yes", "no"]);
const quote = (s: string) => `'${s.length > 60 ? `${s.slice(0, 57)}...` : s}'`;

/** The type of every question in the prepared splits that are there (a missing file adds none). */
function loadData(dataDir: string): HotpotFailureData {
  const types = new Map<string, string>();
  for (const split of ["train", "val", "test"]) {
    const file = join(dataDir, `${split}.jsonl`);
    if (!existsSync(file)) continue;
    for (const { value } of readJsonlLines<{ id?: unknown; type?: unknown }>(file))
      if (typeof value?.id === "string" && typeof value.type === "string") types.set(value.id, value.type);
  }
  return { types };
}

/** One returned paragraph: which search (1-based), its rank in that search's results, its title and text. */
interface Shown {
  search: number;
  rank: number;
  title: string;
  text: string;
}

/**
 * The paragraphs the episode's searches returned, cut out of the decoded result text by the hits'
 * titles (the harness writes each as `[Title] text`); a record without hits gives each result block whole.
 */
function shownParagraphs(record: EpisodeRecord, observations: readonly string[]): Shown[] {
  const shown: Shown[] = [];
  if (record.turns && record.turns.length > 0) {
    let search = 0;
    record.turns.forEach((turn, t) => {
      if (turn.action !== "search") return;
      search++;
      const text = observations[t] ?? "";
      const hits = turn.hits ?? [];
      if (hits.length === 0) {
        if (text.includes("<result>")) shown.push({ search, rank: 1, title: "", text });
        return;
      }
      let from = 0;
      const starts = hits.map((h) => {
        const at = text.indexOf(`[${h.title}] `, from);
        if (at >= 0) from = at + h.title.length + 2;
        return at;
      });
      hits.forEach((h, k) => {
        if (starts[k] < 0) return;
        const next = starts.slice(k + 1).find((s) => s >= 0);
        const end = next ?? text.indexOf("</result>", starts[k]);
        shown.push({ search, rank: k + 1, title: h.title, text: text.slice(starts[k], end < 0 ? undefined : end) });
      });
    });
    return shown;
  }
  // No turn boundaries (older runs): each inserted block that holds results, whole.
  observations
    .filter((o) => o.includes("<result>"))
    .forEach((text, i) => shown.push({ search: i + 1, rank: 1, title: "", text }));
  return shown;
}

function where(s: Shown): string {
  return s.title
    ? `result ${s.rank} of search ${s.search} (title ${quote(s.title)})`
    : `the results of search ${s.search}`;
}

export function labelHotpotEpisode(
  { record, texts }: FailureInput,
  data: HotpotFailureData | undefined,
): FailureVerdict | null {
  const answers = record.answers;
  const f1 = typeof record.metrics.f1 === "number" ? record.metrics.f1 : f1Score(record.prediction, answers);
  if (f1 >= 1) return null;
  const searches = record.searches.length;

  if (record.end !== "answer")
    return {
      label: "no_answer",
      subLabel: record.end,
      evidence: `ended on ${record.end} after ${searches} search${searches === 1 ? "" : "es"}, without an answer`,
    };

  // Each gold answer normalised once: every comparison below reads these.
  const golds = answers.map((a) => ({ answer: a, needle: normalizeAnswer(a) }));
  const em = typeof record.metrics.em === "number" ? record.metrics.em : exactMatch(record.prediction, answers);
  if (em === 0) {
    const inside = golds.find((g) => containsNormalised(record.prediction, g.needle));
    if (inside !== undefined)
      return {
        label: "answer_too_long",
        evidence: `gold ${quote(inside.answer)} inside the answer ${quote(record.prediction)}`,
      };
  }

  if (searches === 0) return { label: "no_search", evidence: `answered ${quote(record.prediction)} without searching` };

  const yesNo = golds.find((g) => YES_NO.has(g.needle))?.answer;
  if (yesNo !== undefined)
    return searches === 1
      ? {
          label: "stopped_after_one_hop",
          evidence: `yes/no gold ${quote(yesNo)}; answered ${quote(record.prediction)} after one search (${quote(record.searches[0])})`,
        }
      : {
          label: "misread",
          evidence: `yes/no gold ${quote(yesNo)}; answered ${quote(record.prediction)} after ${searches} searches`,
        };

  const observations = texts.observations();
  const shown = observations ? shownParagraphs(record, observations) : [];
  for (const s of shown) {
    const gold = golds.find((g) => containsNormalised(s.text, g.needle));
    if (gold !== undefined) return { label: "misread", evidence: `gold ${quote(gold.answer)} in ${where(s)}` };
  }
  const unread = observations ? "" : " (results not read: the run's tokenizer is unavailable)";
  const type =
    typeof (record as { type?: unknown }).type === "string"
      ? (record as { type?: string }).type
      : data?.types.get(record.id);
  if (type === "bridge" && searches === 1)
    return {
      label: "stopped_after_one_hop",
      evidence: `bridge question, one search (${quote(record.searches[0])}), no gold answer shown${unread}`,
    };
  return {
    label: "bad_query",
    evidence: `no gold answer in the ${shown.length} paragraph${shown.length === 1 ? "" : "s"} shown by ${searches} search${searches === 1 ? "" : "es"}${type === undefined ? "; question type unknown" : ""}${unread}`,
  };
}

export const FAILURE_LABELS: FailureLabels<HotpotFailureData> = {
  version: "1",
  labels: [
    { name: "no_answer", description: "ended without an answer (token limit, search budget, or no action)" },
    { name: "answer_too_long", description: "the gold answer is inside a longer answer" },
    { name: "no_search", description: "answered without searching" },
    { name: "stopped_after_one_hop", description: "answered after one search where the question needs two hops" },
    { name: "misread", description: "a shown paragraph held the gold answer (or a yes/no question was read wrong)" },
    { name: "bad_query", description: "no search returned a paragraph with the gold answer" },
  ],
  loadData,
  label: labelHotpotEpisode,
};
