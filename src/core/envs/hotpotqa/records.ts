/**
 * Reads HotpotQA records from any of the shapes users have on disk, one at a time, each with the
 * file line it came from so a bad row is reported as file:line:
 * - the official JSON list (`_id`, `context` as `[title, sentences]` pairs), streamed element by
 *   element (the official train file is larger than the longest string V8 can hold);
 * - JSON Lines of such rows (`id` or `_id`);
 * - the Hugging Face parquet row shape (`context: {title: [...], sentences: [[...]]}`) as JSON/JSONL;
 * - `.parquet` files (the hub's shape), read row group by row group.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { StringDecoder } from "node:string_decoder";
import { FileFormatError } from "../../base/errors";
import { openParquet } from "../../base/data/parquet";

export interface HotpotParagraph {
  title: string;
  sentences: string[];
}

/** The fields prepare needs from one HotpotQA question. */
export interface HotpotRecord {
  id: string;
  question: string;
  answer: string;
  type: string;
  level: string;
  context: HotpotParagraph[];
}

export interface LocatedRecord {
  record: HotpotRecord;
  /** 1-based line (JSON/JSONL) or row number (parquet) where the record starts. */
  line: number;
}

/** Streams the records of one file, validating each; throws FileFormatError naming file:line. */
export async function* readHotpotRecords(file: string): AsyncGenerator<LocatedRecord> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new FileFormatError(file, undefined, "file not found");
  if (file.toLowerCase().endsWith(".parquet")) {
    yield* readParquetRecords(file);
    return;
  }
  let any = false;
  for await (const { text, line } of jsonValues(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new FileFormatError(file, line, `not valid JSON (${(e as Error).message})`);
    }
    any = true;
    yield { record: toHotpotRecord(raw, file, line), line };
  }
  if (!any) throw new FileFormatError(file, 1, "no HotpotQA records (empty file or empty list)");
}

/**
 * Checks one row and brings it to HotpotRecord. Errors name file:line; parquet rows have no line, so
 * they pass `rowLabel` ("row 17") instead.
 */
export function toHotpotRecord(raw: unknown, file: string, line: number | undefined, rowLabel = ""): HotpotRecord {
  const fail = (problem: string): never => {
    throw new FileFormatError(file, line, rowLabel ? `${rowLabel}: ${problem}` : problem);
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    fail("expected a JSON object (one HotpotQA question)");
  const row = raw as Record<string, unknown>;
  const id = row.id ?? row._id;
  if (typeof id !== "string" || !id) fail('missing "id" (or "_id") string');
  const text = (key: string): string => {
    const v = row[key];
    if (typeof v !== "string") fail(`missing "${key}" string`);
    return v as string;
  };
  return {
    id: id as string,
    question: text("question"),
    answer: text("answer"),
    type: text("type"),
    level: text("level"),
    context: toContext(row.context, fail),
  };
}

function toContext(raw: unknown, fail: (problem: string) => never): HotpotParagraph[] {
  const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
  if (Array.isArray(raw)) {
    // official shape: [[title, [sentence, ...]], ...]
    return raw.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string" || !isStrings(pair[1])) {
        fail(`"context"[${i}] is not a [title, [sentences]] pair`);
      }
      return { title: pair[0] as string, sentences: pair[1] as string[] };
    });
  }
  if (typeof raw === "object" && raw !== null) {
    // hub shape: {title: [...], sentences: [[...], ...]}
    const { title, sentences } = raw as { title?: unknown; sentences?: unknown };
    if (
      !isStrings(title) ||
      !Array.isArray(sentences) ||
      sentences.length !== title.length ||
      !sentences.every(isStrings)
    ) {
      fail('"context" must have "title" strings and as many "sentences" lists of strings');
    }
    return (title as string[]).map((t, i) => ({ title: t, sentences: (sentences as string[][])[i] }));
  }
  return fail('missing "context" (list of [title, sentences] pairs or {title, sentences})');
}

/**
 * Splits a file into top-level JSON values without parsing them: the elements of a top-level list
 * (tracking strings and nesting, so any layout works), or one value per line for JSON Lines.
 */
async function* jsonValues(file: string): AsyncGenerator<{ text: string; line: number }> {
  if ((await firstNonBlankChar(file)) === "[") yield* jsonListElements(file);
  else yield* jsonLines(file);
}

async function firstNonBlankChar(file: string): Promise<string | undefined> {
  const decoder = new StringDecoder("utf8");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 16 })) {
    const found = /[^\s\ufeff]/.exec(decoder.write(chunk as Buffer));
    if (found) return found[0];
  }
  return undefined;
}

async function* jsonLines(file: string): AsyncGenerator<{ text: string; line: number }> {
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    const trimmed = text.replace(/^\ufeff/, "").trim();
    if (trimmed) yield { text: trimmed, line };
  }
}

const STRING_STOP = /["\\\n]/g;

async function* jsonListElements(file: string): AsyncGenerator<{ text: string; line: number }> {
  const decoder = new StringDecoder("utf8");
  const blank = (ch: string) => ch === " " || ch === "\t" || ch === "\r" || ch === "\n" || ch === "\ufeff";
  let line = 1;
  let opened = false;
  let closed = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1; // line where the element being read starts; -1 between elements
  let current = ""; // text of that element from earlier chunks
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const text = decoder.write(chunk as Buffer);
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (ch === "\n") line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
        else {
          // most of the text is inside strings: jump to the next quote, backslash or newline
          STRING_STOP.lastIndex = i + 1;
          const next = STRING_STOP.exec(text);
          i = (next ? next.index : text.length) - 1;
        }
        continue;
      }
      if (!opened || closed || start < 0) {
        if (blank(ch)) continue;
        if (!opened && ch === "[") opened = true;
        else if (closed) throw new FileFormatError(file, line, "unexpected text after the list's closing ]");
        else if (ch === ",") continue;
        else if (ch === "]") closed = true;
        else {
          start = line;
          from = i;
          current = "";
          i--; // read this character again as part of the element
        }
        continue;
      }
      let ends = false;
      if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") {
        if (depth === 0)
          ends = closed = true; // the list's own ]
        else depth--;
      } else if (ch === "," && depth === 0) ends = true;
      if (ends) {
        yield { text: current + text.slice(from, i), line: start };
        start = -1;
      }
    }
    if (start >= 0) current += text.slice(from);
  }
  if (start >= 0)
    yield { text: current + decoder.end(), line: start }; // JSON.parse reports it
  else if (!closed) throw new FileFormatError(file, line, "the JSON list is not closed with ]");
}

/** Parquet rows in file order, one row group at a time (the hub's files hold ~90k rows each). */
async function* readParquetRecords(file: string): AsyncGenerator<LocatedRecord> {
  const { hyparquet, compressors, buffer, metadata, columns } = await openParquet(file, [
    "id",
    "question",
    "answer",
    "type",
    "level",
    "context",
  ]);
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    const rows = await hyparquet.parquetReadObjects({ file: buffer, metadata, columns, rowStart, rowEnd, compressors });
    for (let i = 0; i < rows.length; i++) {
      const line = rowStart + i + 1;
      yield { record: toHotpotRecord(rows[i], file, undefined, `row ${line}`), line };
    }
    rowStart = rowEnd;
  }
  if (rowStart === 0) throw new FileFormatError(file, undefined, "parquet file has no rows");
}
