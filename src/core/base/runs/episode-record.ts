/**
 * The one check of an episodes.jsonl record: each reader names the fields it uses, and a record
 * that lacks one (or holds the wrong kind of value) is refused with file:line and the field, instead
 * of failing later as "Cannot read properties of undefined". `score`, `show`, `ablate` and every
 * other reader of episodes go through `readEpisodes`, which calls this.
 */
import { FileFormatError } from "../errors";
import type { EpisodeRecord } from "./run-files";
import { normaliseEpisode } from "./episode-v1";
import type { MetricDeclaration } from "./metrics";

export type EpisodeField = keyof EpisodeRecord;

type Kind = "string" | "number" | "metrics" | "strings" | "numbers";

/** What each field must hold when a reader needs it. */
const KINDS: Partial<Record<EpisodeField, Kind>> = {
  id: "string",
  question: "string",
  answers: "strings",
  format: "number",
  prediction: "string",
  metrics: "metrics",
  reward: "number",
  end: "string",
  searches: "strings",
  prompt: "numbers",
  tokens: "numbers",
  sampled: "numbers",
  prefill: "number",
  generated: "number",
  usd: "number",
};

const DESCRIBE: Record<Kind, string> = {
  string: "a string",
  number: "a finite number",
  metrics: "an object of numbers in [0, 1]",
  strings: "a list of strings",
  numbers: "a list of numbers",
};

function holds(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "metrics":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    case "strings":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
    case "numbers":
      return Array.isArray(v) && v.every((x) => typeof x === "number");
  }
}

/** Every declared metric, binary or continuous, is a score in [0, 1] (base/runs/metrics.ts); the first that is not is named. */
function checkMetrics(metrics: Record<string, unknown>, file: string, line: number): void {
  for (const [name, v] of Object.entries(metrics)) {
    if (typeof v !== "number" || !(v >= 0 && v <= 1))
      throw new FileFormatError(
        file,
        line,
        `episode record's "metrics.${name}" must be a number in [0, 1], got ${JSON.stringify(v)?.slice(0, 40)}`,
      );
  }
}

/** Every reader needs the id (resume, pairing and dedup key on it). */
export const ID_FIELDS: readonly EpisodeField[] = ["id"];
/** `score RUN` rescoring: the prediction, the gold answers and how it ended (for the reward). */
export const SCORE_FIELDS: readonly EpisodeField[] = ["id", "prediction", "answers", "end"];
/** `show`: the tables and the failures' text. */
export const SHOW_FIELDS: readonly EpisodeField[] = [
  "id",
  "question",
  "answers",
  "prediction",
  "metrics",
  "end",
  "searches",
];
/** The drift check (`show`'s count, the trace viewer's): the token stream and who wrote each token. */
export const DRIFT_FIELDS: readonly EpisodeField[] = ["id", "prompt", "tokens", "sampled"];
/** `ablate` and Compare: the paired numbers. */
export const ABLATE_FIELDS: readonly EpisodeField[] = ["id", "metrics", "usd", "searches"];

/**
 * Refuses a record (line `line` of `file`) that is not an object or lacks one of `fields`; a v1
 * record is read in the current format first (`metrics`: the run's environment's declared metrics,
 * which say what its slots held; see episode-v1.ts).
 */
export function checkEpisodeRecord(
  raw: unknown,
  file: string,
  line: number,
  fields: readonly EpisodeField[],
  metrics: readonly MetricDeclaration[],
): EpisodeRecord {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new FileFormatError(file, line, "an episode record must be a JSON object");
  const row = normaliseEpisode(raw as Record<string, unknown>, metrics);
  for (const field of fields) {
    const kind = KINDS[field] ?? "string";
    if (!(field in row) || row[field] === undefined)
      throw new FileFormatError(
        file,
        line,
        `episode record has no "${field}" (${DESCRIBE[kind]}); was this file written by agent-lab eval?`,
      );
    if (!holds(kind, row[field])) {
      throw new FileFormatError(
        file,
        line,
        `episode record's "${field}" must be ${DESCRIBE[kind]}, got ${JSON.stringify(row[field])?.slice(0, 40)}`,
      );
    }
    if (kind === "metrics") checkMetrics(row[field] as Record<string, unknown>, file, line);
  }
  return row as unknown as EpisodeRecord;
}
