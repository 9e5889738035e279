/**
 * JSON Lines: one record per line. Reading names file and line on any bad line; appending writes a
 * whole line in one call so a crash leaves at most one torn last line, which readers can skip.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
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
  return parseJsonlLines<T>(readFileSync(file, "utf8"), file, options);
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
  const lines = text.split("\n");
  const parse = options.parse ?? ((l: string) => JSON.parse(l) as unknown);
  const rows: JsonlRow<T>[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    try {
      rows.push({ value: parse(line) as T, line: i + 1 });
    } catch (e) {
      const isLast = lines.slice(i + 1).every((l) => !l.trim());
      if (options.tolerateTornTail && isLast && !text.endsWith("\n")) break;
      throw new FileFormatError(file, i + 1, `not valid JSON (${(e as Error).message})`);
    }
  }
  return rows;
}

/** Appends one record as one line (a single write, flushed by the OS on return). */
export function appendJsonl(file: string, row: unknown): void {
  appendFileSync(file, JSON.stringify(row) + "\n");
}
