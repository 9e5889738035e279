/**
 * episodes.jsonl by byte offset: one pass over the file finds every line and reads only each
 * episode's light fields (id, question, answers, prediction, scores, end, searches: what the
 * episode list and the run's text search need), never the token arrays that make up most of a
 * line. Opening one episode then reads one line. A 10,000-episode run (~40 MB) is indexed in a
 * fraction of what parsing every line costs.
 *
 * The light fields are read from the line's head: the harness writes them before `"prompt":`
 * (see toRecord), so the text up to that key plus "}" is a JSON object of exactly those fields.
 * A line written in another key order falls back to parsing the whole line. Rules as readEpisodes:
 * a torn last line is skipped, the first of two lines with one id wins, a bad record names file:line.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { FileFormatError } from "../errors";
import { checkEpisodeRecord, type EpisodeField } from "./episode-record";
import { normaliseEpisode } from "./episode-v1";
import type { MetricDeclaration, MetricsOf } from "./metrics";
import { episodesPath, runMetrics, type EpisodeRecord } from "./run-files";

/** The fields read for every episode when indexing (all before the token arrays on disk). */
export const HEAD_FIELDS = [
  "id",
  "question",
  "answers",
  "prediction",
  "metrics",
  "end",
  "searches",
] as const satisfies readonly EpisodeField[];
export type EpisodeHead = Pick<EpisodeRecord, (typeof HEAD_FIELDS)[number]>;
/** What opening one episode in the trace viewer needs on top. */
export const TRACE_FIELDS: readonly EpisodeField[] = [
  ...HEAD_FIELDS,
  "prompt",
  "tokens",
  "sampled",
  "prefill",
  "generated",
  "usd",
];

export interface IndexedEpisode {
  head: EpisodeHead;
  /** Byte offset of the line in episodes.jsonl and its length without the newline. */
  offset: number;
  length: number;
  /** 1-based line number, for messages. */
  line: number;
}

export interface EpisodeIndex {
  file: string;
  /** The declared metrics of the run's environment (its manifest's): what v1 records' slots held. */
  metrics: readonly MetricDeclaration[];
  /** episodes.jsonl's size and mtime when indexed (0 and 0 when there is none yet). */
  size: number;
  mtimeMs: number;
  episodes: IndexedEpisode[];
  /** False when indexing stopped at `limit` episodes: there may be more. */
  complete: boolean;
}

const HEAD_END = Buffer.from(',"prompt":');
/** Bytes read at a time (more for a longer line): a whole-file read of a 40 MB run cost more than its parsing. */
const CHUNK_BYTES = 1 << 20;

/**
 * Indexes episodes.jsonl a chunk at a time, up to its size when the scan began (what an eval
 * appends meanwhile is for the next index: the stamp says the file changed). Each step opens the
 * file anew, so a scan left unfinished holds nothing open.
 */
export class EpisodeScan {
  readonly file: string;
  private readonly index: EpisodeIndex;
  private readonly seen = new Set<string>();
  private buf = Buffer.allocUnsafe(0);
  /** Bytes of buf holding file data (from `at`); the file offset of buf[0]; lines so far. */
  private held = 0;
  private at = 0;
  private line = 0;

  constructor(
    runDir: string,
    metricsOf: MetricsOf,
    private readonly limit = Infinity,
  ) {
    this.file = episodesPath(runDir);
    const stat = existsSync(this.file) ? statSync(this.file) : undefined;
    this.index = {
      file: this.file,
      metrics: runMetrics(runDir, metricsOf),
      size: stat?.size ?? 0,
      mtimeMs: stat?.mtimeMs ?? 0,
      episodes: [],
      complete: false,
    };
  }

  /** The index so far; whole once step() has returned false. */
  get result(): EpisodeIndex {
    return this.index;
  }

  /** Indexes the next chunk's lines; false once the file or the limit is reached. */
  step(): boolean {
    const { index } = this;
    if (this.done()) return false;
    if (this.buf.length === 0) this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    else if (this.held > this.buf.length / 2) {
      // A line longer than half the buffer: room for more of it.
      const grown = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(grown, 0, 0, this.held);
      this.buf = grown;
    }
    const want = Math.min(this.buf.length - this.held, index.size - this.at - this.held);
    const got = want > 0 ? readAt(this.file, this.buf, this.held, want, this.at + this.held) : 0;
    this.held += got;
    const last = got < want || this.at + this.held >= index.size;
    const data = this.buf.subarray(0, this.held);
    let start = 0;
    while (start < this.held && index.episodes.length < this.limit) {
      let end = data.indexOf(0x0a, start);
      if (end < 0 && !last) break; // the line goes on in the next chunk
      const torn = end < 0;
      if (torn) end = this.held;
      this.line++;
      const head = parseHead(this.buf, start, end, this.file, this.line, torn, this.index.metrics);
      if (head && !this.seen.has(head.id)) {
        this.seen.add(head.id);
        index.episodes.push({ head, offset: this.at + start, length: end - start, line: this.line });
      }
      start = end + 1;
    }
    this.buf.copy(this.buf, 0, Math.min(start, this.held), this.held);
    this.at += start;
    this.held = Math.max(0, this.held - start);
    if (last && this.held === 0) index.complete = true;
    return !this.done();
  }

  private done(): boolean {
    return this.index.complete || this.index.episodes.length >= this.limit;
  }
}

/** Reads `length` bytes at `position` into buf at `offset` (fewer at the end of the file); returns how many. */
function readAt(file: string, buf: Buffer, offset: number, length: number, position: number): number {
  const fd = openSync(file, "r");
  try {
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, offset + got, length - got, position + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  } finally {
    closeSync(fd);
  }
}

/**
 * Indexes a run's episodes.jsonl (an empty index when the file does not exist yet), or its first
 * `limit` episodes; `metricsOf` as readEpisodes.
 */
export function indexEpisodes(runDir: string, metricsOf: MetricsOf, limit = Infinity): EpisodeIndex {
  const scan = new EpisodeScan(runDir, metricsOf, limit);
  while (scan.step());
  return scan.result;
}

/** Whether the file changed since the index was made (size or mtime). */
export function indexIsCurrent(index: EpisodeIndex): boolean {
  if (!existsSync(index.file)) return index.size === 0;
  const s = statSync(index.file);
  return s.size === index.size && s.mtimeMs === index.mtimeMs;
}

function parseHead(
  buf: Buffer,
  start: number,
  end: number,
  file: string,
  line: number,
  torn: boolean,
  metrics: readonly MetricDeclaration[],
): EpisodeHead | undefined {
  const cut = buf.subarray(start, end).indexOf(HEAD_END);
  if (cut > 0) {
    try {
      const head = normaliseEpisode(
        JSON.parse(buf.toString("utf8", start, start + cut) + "}") as Record<string, unknown>,
        metrics,
      );
      if (HEAD_FIELDS.every((f) => f in head)) return checkEpisodeRecord(head, file, line, HEAD_FIELDS, metrics);
    } catch (e) {
      if (e instanceof FileFormatError) throw e;
      // Not a JSON object up to the key (another writer's layout): parse the whole line below.
    }
  }
  const text = buf.toString("utf8", start, end);
  if (!text.trim()) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (torn) return undefined; // what a writer killed mid-append leaves
    throw new FileFormatError(file, line, `not valid JSON (${(e as Error).message})`);
  }
  const r = checkEpisodeRecord(value, file, line, HEAD_FIELDS, metrics);
  return {
    id: r.id,
    question: r.question,
    answers: r.answers,
    prediction: r.prediction,
    metrics: r.metrics,
    end: r.end,
    searches: r.searches,
  };
}

/** Whole records of some indexed episodes (in file order), each holding `fields`, in one read per call. */
export function readIndexedEpisodes(
  index: EpisodeIndex,
  entries: readonly IndexedEpisode[],
  fields: readonly EpisodeField[] = TRACE_FIELDS,
): EpisodeRecord[] {
  if (entries.length === 0) return [];
  const from = Math.min(...entries.map((e) => e.offset));
  const to = Math.max(...entries.map((e) => e.offset + e.length));
  const buf = Buffer.alloc(to - from);
  readAt(index.file, buf, 0, buf.length, from);
  return entries.map((e) => {
    const text = buf.toString("utf8", e.offset - from, e.offset - from + e.length);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new FileFormatError(
        index.file,
        e.line,
        `not valid JSON (${(err as Error).message}); the file changed since it was read: reopen the trace`,
      );
    }
    return checkEpisodeRecord(value, index.file, e.line, fields, index.metrics);
  });
}

/** One episode's whole record: reads its line only. */
export function readIndexedEpisode(
  index: EpisodeIndex,
  entry: IndexedEpisode,
  fields: readonly EpisodeField[] = TRACE_FIELDS,
): EpisodeRecord {
  return readIndexedEpisodes(index, [entry], fields)[0];
}
