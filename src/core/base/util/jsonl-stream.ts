/**
 * JSON Lines read a chunk at a time, for files that may be far larger than what should sit in
 * memory (a tinker-cookbook metrics.jsonl of 500 MB): memory stays at one chunk plus one line,
 * whatever the file's size. A line longer than `maxLineBytes` is skipped (counted, never held);
 * reading may start at a byte offset (the tail of a file) or stop early.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { FileFormatError } from "../errors";

const CHUNK_BYTES = 1024 * 1024;
/**
 * The async reader's chunk: smaller, so the event loop's turn between two chunks comes within a
 * few milliseconds of parsing even on a slow, loaded machine (a 1 MiB chunk's lines took up to
 * 100 ms there).
 */
const ASYNC_CHUNK_BYTES = 128 * 1024;

export interface StreamJsonlOptions {
  /** Parses one line (default JSON.parse); a SyntaxError names file:line. */
  parse?: (line: string) => unknown;
  /** Lines longer than this are skipped and reported in the result, never held whole. */
  maxLineBytes: number;
  /** Start here; a start inside a line skips to the next one (that partial line is not counted). */
  fromByte?: number;
  /** Skip a torn final line (what a writer still appending leaves) instead of failing. */
  tolerateTornTail?: boolean;
}

export interface StreamedJsonl {
  /** Lines seen (blank ones included): the number of the last line read, counted from `fromByte`. */
  lines: number;
  /** The lines skipped for their size: their numbers (from `fromByte`) and byte lengths. */
  oversize: { line: number; bytes: number }[];
}

/** Calls `onRow` with each non-blank line's value and its 1-based line number, in file order. */
export function streamJsonl(
  file: string,
  onRow: (value: unknown, line: number) => void,
  options: StreamJsonlOptions,
): StreamedJsonl {
  const fd = openSync(file, "r");
  const buf = Buffer.alloc(CHUNK_BYTES);
  const lines = lineSplitter(file, onRow, options);
  let position = options.fromByte ?? 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK_BYTES, position);
      if (n === 0) break;
      position += n;
      lines.push(buf, n);
    }
    return lines.end();
  } finally {
    closeSync(fd);
  }
}

/**
 * The same, reading each chunk asynchronously: the event loop gets a turn between two chunks (one
 * chunk's lines parse in milliseconds), so a caller on the extension host's thread keeps it responsive.
 */
export async function streamJsonlAsync(
  file: string,
  onRow: (value: unknown, line: number) => void,
  options: StreamJsonlOptions,
): Promise<StreamedJsonl> {
  const handle = await open(file, "r");
  const buf = Buffer.alloc(ASYNC_CHUNK_BYTES);
  const lines = lineSplitter(file, onRow, options);
  let position = options.fromByte ?? 0;
  try {
    for (;;) {
      const { bytesRead: n } = await handle.read(buf, 0, ASYNC_CHUNK_BYTES, position);
      if (n === 0) break;
      position += n;
      lines.push(buf, n);
    }
    return lines.end();
  } finally {
    await handle.close();
  }
}

/** Splits chunks into lines and parses them (what both readers share): `push` each chunk, then `end`. */
function lineSplitter(
  file: string,
  onRow: (value: unknown, line: number) => void,
  options: StreamJsonlOptions,
): { push(buf: Buffer, n: number): void; end(): StreamedJsonl } {
  const parse = options.parse ?? ((l: string) => JSON.parse(l) as unknown);
  const oversize: StreamedJsonl["oversize"] = [];
  let seekingLineStart = (options.fromByte ?? 0) > 0;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let dropping = false; // the current line is over the limit: its bytes are counted, not kept
  let line = 0;

  const endLine = (torn: boolean) => {
    line++;
    if (dropping) {
      oversize.push({ line, bytes: partBytes });
    } else {
      const text = Buffer.concat(parts, partBytes).toString("utf8").trim();
      if (text) {
        let value: unknown;
        try {
          value = parse(text);
        } catch (e) {
          if (!(e instanceof SyntaxError)) throw e;
          if (torn && options.tolerateTornTail) return;
          throw new FileFormatError(file, line, `not valid JSON (${e.message})`);
        }
        onRow(value, line);
      }
    }
    parts = [];
    partBytes = 0;
    dropping = false;
  };

  return {
    push(buf: Buffer, n: number) {
      let start = 0;
      while (start < n) {
        const nl = buf.indexOf(10, start);
        const end = nl < 0 || nl >= n ? n : nl;
        if (seekingLineStart) {
          if (end < n) seekingLineStart = false;
        } else {
          partBytes += end - start;
          if (partBytes > options.maxLineBytes) {
            dropping = true;
            parts = [];
          } else if (!dropping) parts.push(Buffer.from(buf.subarray(start, end)));
          if (end < n) endLine(false);
        }
        start = end + 1;
      }
    },
    end() {
      if (partBytes > 0 || dropping) endLine(true);
      return { lines: line, oversize };
    },
  };
}
