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
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { FileFormatError } from "../errors";
import { checkEpisodeRecord, type EpisodeField } from "./episode-record";
import { episodesPath, type EpisodeRecord } from "./run-files";

/** The fields read for every episode when indexing (all before the token arrays on disk). */
export type EpisodeHead = Pick<EpisodeRecord, "id" | "question" | "answers" | "prediction" | "em" | "f1" | "end" | "searches">;
export const HEAD_FIELDS: readonly EpisodeField[] = ["id", "question", "answers", "prediction", "em", "f1", "end", "searches"];
/** What opening one episode in the trace viewer needs on top. */
export const TRACE_FIELDS: readonly EpisodeField[] = [...HEAD_FIELDS, "prompt", "tokens", "sampled", "prefill", "generated", "usd"];

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
  /** episodes.jsonl's size and mtime when indexed (0 and 0 when there is none yet). */
  size: number;
  mtimeMs: number;
  episodes: IndexedEpisode[];
}

const HEAD_END = Buffer.from(',"prompt":');

/** Indexes a run's episodes.jsonl (an empty index when the file does not exist yet). */
export function indexEpisodes(runDir: string): EpisodeIndex {
  const file = episodesPath(runDir);
  if (!existsSync(file)) return { file, size: 0, mtimeMs: 0, episodes: [] };
  const stat = statSync(file);
  const buf = readFileSync(file);
  const episodes: IndexedEpisode[] = [];
  const seen = new Set<string>();
  let line = 0;
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(0x0a, start);
    const torn = end < 0;
    if (torn) end = buf.length;
    line++;
    const head = parseHead(buf, start, end, file, line, torn);
    if (head && !seen.has(head.id)) {
      seen.add(head.id);
      episodes.push({ head, offset: start, length: end - start, line });
    }
    start = end + 1;
  }
  return { file, size: stat.size, mtimeMs: stat.mtimeMs, episodes };
}

/** Whether the file changed since the index was made (size or mtime). */
export function indexIsCurrent(index: EpisodeIndex): boolean {
  if (!existsSync(index.file)) return index.size === 0;
  const s = statSync(index.file);
  return s.size === index.size && s.mtimeMs === index.mtimeMs;
}

function parseHead(buf: Buffer, start: number, end: number, file: string, line: number, torn: boolean): EpisodeHead | undefined {
  const cut = buf.subarray(start, end).indexOf(HEAD_END);
  if (cut > 0) {
    try {
      const head = JSON.parse(buf.toString("utf8", start, start + cut) + "}") as Record<string, unknown>;
      if (HEAD_FIELDS.every((f) => f in head)) return checkEpisodeRecord(head, file, line, HEAD_FIELDS);
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
  const r = checkEpisodeRecord(value, file, line, HEAD_FIELDS);
  return { id: r.id, question: r.question, answers: r.answers, prediction: r.prediction, em: r.em, f1: r.f1, end: r.end, searches: r.searches };
}

/** Whole records of some indexed episodes (in file order), each holding `fields`, in one read per call. */
export function readIndexedEpisodes(index: EpisodeIndex, entries: readonly IndexedEpisode[], fields: readonly EpisodeField[] = TRACE_FIELDS): EpisodeRecord[] {
  if (entries.length === 0) return [];
  const from = Math.min(...entries.map((e) => e.offset));
  const to = Math.max(...entries.map((e) => e.offset + e.length));
  const buf = Buffer.alloc(to - from);
  const fd = openSync(index.file, "r");
  try {
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, from + got);
      if (n === 0) break;
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  return entries.map((e) => {
    const text = buf.toString("utf8", e.offset - from, e.offset - from + e.length);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new FileFormatError(index.file, e.line, `not valid JSON (${(err as Error).message}); the file changed since it was read: reopen the trace`);
    }
    return checkEpisodeRecord(value, index.file, e.line, fields);
  });
}

/** One episode's whole record: reads its line only. */
export function readIndexedEpisode(index: EpisodeIndex, entry: IndexedEpisode, fields: readonly EpisodeField[] = TRACE_FIELDS): EpisodeRecord {
  return readIndexedEpisodes(index, [entry], fields)[0];
}
