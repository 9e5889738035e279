/**
 * JSON Lines: one record per line. Reading names file and line on any bad line; appending writes a
 * whole line in one call so a crash leaves at most one torn last line, which readers can skip.
 */
import { appendFileSync, closeSync, existsSync, openSync, readSync } from "node:fs";
import { FileFormatError } from "../errors";

export interface ReadJsonlOptions {
  /** Skip a torn final line (what a killed writer leaves) instead of failing. */
  tolerateTornTail?: boolean;
  /** Parses one line (default JSON.parse; Python-written files pass base/data/python-json's pyJsonParse). */
  parse?: (line: string) => unknown;
}

/** Parses every non-blank line; throws FileFormatError naming file:line on invalid JSON. */
export function readJsonl<T = unknown>(file: string, options: ReadJsonlOptions = {}): T[] {
  return readJsonlLines<T>(file, options).map((r) => r.value);
}

/** Like readJsonl, with each row's line number in the file (blank lines counted), for messages. */
export function readJsonlLines<T = unknown>(file: string, options: ReadJsonlOptions = {}): JsonlRow<T>[] {
  if (!existsSync(file)) throw new FileFormatError(file, undefined, "file not found");
  const end = { newline: false };
  return parseLines<T>(fileLines(file, end), () => end.newline, file, options);
}

export function parseJsonl<T = unknown>(text: string, file: string, options: ReadJsonlOptions = {}): T[] {
  return parseJsonlLines<T>(text, file, options).map((r) => r.value);
}

/** One parsed row and its 1-based line in the file. */
export interface JsonlRow<T> {
  value: T;
  line: number;
}

export function parseJsonlLines<T = unknown>(
  text: string,
  file: string,
  options: ReadJsonlOptions = {},
): JsonlRow<T>[] {
  return parseLines<T>(text.split("\n"), () => text.endsWith("\n"), file, options);
}

/**
 * The rows of `lines` (a text split at "\n"). A line that does not parse is refused, unless it is
 * the last non-blank one of a text that does not end with "\n" (`endsWithNewline`, asked once the
 * lines are read) and a torn tail is tolerated: then it is skipped.
 */
function parseLines<T>(
  lines: Iterable<string>,
  endsWithNewline: () => boolean,
  file: string,
  options: ReadJsonlOptions,
): JsonlRow<T>[] {
  const parse = options.parse ?? ((l: string) => JSON.parse(l) as unknown);
  const rows: JsonlRow<T>[] = [];
  let n = 0;
  let bad: FileFormatError | undefined;
  for (const text of lines) {
    n++;
    const line = text.trim();
    if (!line) continue;
    if (bad) throw bad; // a line after the one that did not parse: that one was not a torn tail
    try {
      rows.push({ value: parse(line) as T, line: n });
    } catch (e) {
      bad = new FileFormatError(file, n, `not valid JSON (${(e as Error).message})`);
    }
  }
  if (bad && !(options.tolerateTornTail && !endsWithNewline())) throw bad;
  return rows;
}

/**
 * Bytes read at a time. A file is decoded a chunk of whole lines at a time instead of into one
 * string: a 10,000-episode episodes.jsonl (37 MB) took a third of the CPU that way.
 */
const CHUNK_BYTES = 1 << 20;

/**
 * The lines of a UTF-8 file, as its text split at "\n" gives them (a chunk is cut at a "\n" byte,
 * which no other character's bytes contain, so each decodes as it would in the whole text); once
 * they are all given, `end.newline` says whether the file ends with "\n".
 */
function* fileLines(file: string, end: { newline: boolean }): Generator<string> {
  const fd = openSync(file, "r");
  try {
    let buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let held = 0; // bytes at buf's start after the last "\n" given out
    let last = -1;
    for (;;) {
      if (held === buf.length) {
        // One line longer than the buffer: a bigger one.
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, held);
        buf = bigger;
      }
      const read = readSync(fd, buf, held, buf.length - held, null);
      if (read === 0) break;
      const filled = held + read;
      last = buf[filled - 1];
      const newline = buf.lastIndexOf(0x0a, filled - 1);
      if (newline < held) {
        held = filled;
        continue;
      }
      yield* buf.toString("utf8", 0, newline).split("\n");
      buf.copy(buf, 0, newline + 1, filled);
      held = filled - newline - 1;
    }
    yield buf.toString("utf8", 0, held);
    end.newline = last === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** Appends one record as one line (a single write, flushed by the OS on return). */
export function appendJsonl(file: string, row: unknown): void {
  appendFileSync(file, JSON.stringify(row) + "\n");
}
