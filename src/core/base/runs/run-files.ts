/**
 * A run is a folder and its files are the database: `episodes.jsonl` (one line per finished
 * episode, appended the moment it finishes), `summary.json` (rewritten atomically) and
 * `manifest.json` (the run's fingerprint). Everything the UI, `show`, `ablate` and `compare` know
 * about a run is read from here, so runs copied from another machine work the same.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  openSync,
  readSync,
  closeSync,
} from "node:fs";
import { join } from "node:path";
import { FileFormatError } from "../errors";
import { jsonErrorLine } from "../config";
import { appendJsonl, readJsonlLines } from "../util/jsonl";
import { checkEpisodeRecord, ID_FIELDS, type EpisodeField } from "./episode-record";
import { V1_RECORD_KEYS } from "./episode-v1";
import { pickJsonFields } from "./json-fields";
import type { RunManifest } from "./manifest";
import { recordedEnvironment, type EnvironmentId } from "./environment-id";
import type { MetricDeclaration, MetricsOf } from "./metrics";
import { RUN_FILES, RUN_MARKERS } from "./run-folder";
import { normaliseSummary, type RunSummary, type SummaryHead } from "./summary";

export const EPISODES_FILE = RUN_FILES.episodes;
export const SUMMARY_FILE = RUN_FILES.summary;
export const MANIFEST_FILE = RUN_FILES.manifest;

/** How an episode ended (the harness's vocabulary). */
export type EndReason = "answer" | "no_action" | "length" | "budget";

/** One line of episodes.jsonl. snake_case on disk so Python notebooks read it without renaming. */
export interface EpisodeRecord {
  /** The record format (episode-v1.ts: EPISODE_FORMAT); lines of format 1 have none and are read as the current one. */
  format: number;
  id: string;
  question: string;
  answers: string[];
  prediction: string;
  /** One value per metric the environment declares (base/runs/metrics.ts), by name. */
  metrics: Record<string, number>;
  /** F1 when the episode ended with an answer, else 0 (what RL optimises). */
  reward: number;
  end: EndReason | string;
  searches: string[];
  /** Chat-template tokens of system prompt + question. */
  prompt: number[];
  /** Everything after the prompt, model and harness turns interleaved. */
  tokens: number[];
  /** Per token of `tokens`: 1 = the model sampled it, 0 = the harness inserted it. */
  sampled: number[];
  /** Sampler logprob per token (0 for inserted tokens); null when the source gives none. */
  logprobs: number[] | null;
  /** Tokens sent to the sampler, summed over turns (for cost). */
  prefill: number;
  /** Tokens the sampler produced. */
  generated: number;
  usd: number;
  /** Turn boundaries in `tokens`, when the harness reports them. */
  turns?: TurnRecord[];
}

/** One model turn and the harness text after it; offsets index `tokens`. */
export interface TurnRecord {
  start: number;
  reply_end: number;
  end: number;
  action: string;
  stop_reason: string;
  query?: string;
  /** Paragraphs the search returned (text is in the tokens). */
  hits?: { id: number; title: string; score: number }[];
}

/** What readRun reads of a run: its manifest and episodes. */
export interface RunRecords {
  manifest: RunManifest | undefined;
  episodes: EpisodeRecord[];
}

/** A run's records and its summary (readSummary), as `show` renders them. */
export interface RunFiles extends RunRecords {
  summary: RunSummary | undefined;
}

export function episodesPath(runDir: string): string {
  return join(runDir, EPISODES_FILE);
}

/** Reads a JSON file, naming file and line when it is not valid JSON; undefined when absent. */
/** episodes.jsonl's size and mtime: a cache of what a run's episodes give (the trace's text, Compare's) is stale once they change. */
export interface EpisodesStamp {
  size: number;
  mtime_ms: number;
}

/** episodes.jsonl's size and mtime now (zeros when absent). */
export function episodesStamp(runDir: string): EpisodesStamp {
  const file = episodesPath(runDir);
  if (!existsSync(file)) return { size: 0, mtime_ms: 0 };
  const s = statSync(file);
  return { size: s.size, mtime_ms: s.mtimeMs };
}

export function readJsonFile<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, "utf8");
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new FileFormatError(file, jsonErrorLine(text, e as Error), `not valid JSON (${(e as Error).message})`);
  }
}

/**
 * The finished episodes of a run, in the order they finished. A torn last line (what `kill -9`
 * mid-write leaves) is skipped; if an id appears twice, the first wins. Each record must hold the
 * `fields` the caller uses (see episode-record.ts), else the error names file:line and the field.
 * `metricsOf` gives the run's environment's declared metrics, which name a format-1 record's slots.
 */
export function readEpisodes(
  runDir: string,
  metricsOf: MetricsOf,
  fields: readonly EpisodeField[] = ID_FIELDS,
): EpisodeRecord[] {
  return checkedEpisodes(runDir, metricsOf, fields);
}

/**
 * readEpisodes holding only the top-level fields `keep` (and `fields`, checked as there): each line
 * is checked whole against JSON's grammar but only these fields are built (json-fields.ts), the
 * same values JSON.parse gives them. A line it does not take (invalid JSON, not an object) is
 * parsed whole, so a torn or malformed line is skipped or refused exactly as readEpisodes does.
 * For readers of a few small fields of lines that are mostly token arrays (ablate, Compare).
 */
export function readEpisodeFields<K extends EpisodeField>(
  runDir: string,
  metricsOf: MetricsOf,
  keep: readonly K[],
  fields: readonly EpisodeField[] = ID_FIELDS,
): Pick<EpisodeRecord, K>[] {
  // A format-1 line's metrics are in its slots (normaliseEpisode reads them into the current format).
  const keys = new Set<string>(["id", ...keep, ...fields, ...V1_RECORD_KEYS]);
  return checkedEpisodes(runDir, metricsOf, fields, (line) => pickJsonFields(line, keys) ?? JSON.parse(line));
}

function checkedEpisodes(
  runDir: string,
  metricsOf: MetricsOf,
  fields: readonly EpisodeField[],
  parse?: (line: string) => unknown,
): EpisodeRecord[] {
  const file = episodesPath(runDir);
  if (!existsSync(file)) return [];
  const seen = new Set<string>();
  const out: EpisodeRecord[] = [];
  const metrics = runMetrics(runDir, metricsOf);
  for (const { value, line } of readJsonlLines<unknown>(file, { tolerateTornTail: true, parse })) {
    const row = checkEpisodeRecord(value, file, line, fields.includes("id") ? fields : ["id", ...fields], metrics);
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(row);
  }
  return out;
}

/**
 * The environment a run's manifest records (whose declared metrics its v1 records' slots hold; see
 * episode-v1.ts); undefined when it records none or has no readable manifest (which environment that
 * means is the catalog's: envs/manifest-environment.ts runEnvironmentName).
 */
export function recordedRunEnvironment(runDir: string): EnvironmentId | undefined {
  let manifest: unknown;
  try {
    manifest = readJsonFile<unknown>(join(runDir, MANIFEST_FILE));
  } catch {
    // A damaged manifest is for the reader of the manifest to report; its episodes stay readable as the implied environment's.
  }
  return recordedEnvironment(manifest);
}

/** The declared metrics of the run's environment, as `metricsOf` gives them: what its format-1 files' slots held. */
export function runMetrics(runDir: string, metricsOf: MetricsOf): readonly MetricDeclaration[] {
  return metricsOf(recordedRunEnvironment(runDir)?.name);
}

/** Whether a folder holds an eval-style run (a manifest or episodes): what readRun reads. */
function holdsEpisodes(dir: string): boolean {
  return existsSync(join(dir, MANIFEST_FILE)) || existsSync(join(dir, EPISODES_FILE));
}

/** The manifest of a run folder, refusing a folder that holds no eval-style run (what readRun reads first). */
export function readRunHead(runDir: string): Omit<RunRecords, "episodes"> {
  if (!existsSync(runDir) || !statSync(runDir).isDirectory()) {
    throw new FileFormatError(runDir, undefined, "not a run folder (no such directory)");
  }
  if (!holdsEpisodes(runDir))
    throw new FileFormatError(
      runDir,
      undefined,
      `not a run folder (no ${MANIFEST_FILE} or ${EPISODES_FILE}); give a folder that agent-lab eval wrote`,
    );
  return { manifest: readJsonFile<RunManifest>(join(runDir, MANIFEST_FILE)) };
}

/** Manifest and episodes (each holding `fields`; `metricsOf` as readEpisodes) of one run folder. */
export function readRun(runDir: string, metricsOf: MetricsOf, fields: readonly EpisodeField[] = ID_FIELDS): RunRecords {
  return { ...readRunHead(runDir), episodes: readEpisodes(runDir, metricsOf, fields) };
}

/**
 * The one reader of summary.json: the run's summary in the current format (summary.ts
 * normaliseSummary), a format-1 one's slots named by `metricsOf` of the run's environment (its
 * manifest's); undefined when the run has none.
 */
export function readSummary(runDir: string, metricsOf: MetricsOf): RunSummary | undefined {
  const file = join(runDir, SUMMARY_FILE);
  const raw = readJsonFile<unknown>(file);
  return raw === undefined ? undefined : normaliseSummary(raw, file, runMetrics(runDir, metricsOf));
}

/** The fields of a run's summary.json that every format has alike (cost, time, status): no metric names needed. */
export function readSummaryHead(runDir: string): SummaryHead | undefined {
  const file = join(runDir, SUMMARY_FILE);
  const raw = readJsonFile<unknown>(file);
  if (raw === undefined) return undefined;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new FileFormatError(file, undefined, "expected a JSON object");
  return raw as SummaryHead;
}

/** Run folders under a runs directory (those holding any run file), sorted by name. */
export function listRuns(runsDir: string): string[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && RUN_MARKERS.some((f) => existsSync(join(runsDir, d.name, f))))
    .map((d) => d.name)
    .sort();
}

/**
 * Cuts a torn final line (no trailing newline) off episodes.jsonl before a resumed run appends,
 * so the next record does not get glued onto half a line. Returns the bytes removed.
 */
export function repairTornTail(file: string): number {
  if (!existsSync(file)) return 0;
  const size = statSync(file).size;
  if (size === 0) return 0;
  const keep = bytesThroughLastNewline(file, size);
  if (keep === size) return 0;
  truncateSync(file, keep);
  return size - keep;
}

/** Length of the file up to and including its last "\n" (0 when it has none). */
function bytesThroughLastNewline(file: string, size: number): number {
  const fd = openSync(file, "r");
  try {
    // Scan backwards in chunks: one episode line can be hundreds of kilobytes.
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const idx = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (idx >= 0) return start + idx + 1;
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Appends one finished episode as a single line: a crash loses at most the episodes in flight. */
export function appendEpisode(runDir: string, record: EpisodeRecord): void {
  appendJsonl(episodesPath(runDir), record);
}

export function ensureRunDir(runDir: string): void {
  mkdirSync(runDir, { recursive: true });
}
