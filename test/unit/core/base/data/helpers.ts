/** Shared by the data tests: temp folders, python3, and inputs derived at test time from real records. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `agent-lab-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs `python3 -c script args…` with `input` on stdin; undefined when python3 is not installed. */
export function runPython(script: string, args: string[] = [], input = ""): string | undefined {
  const py = spawnSync("python3", ["-c", script, ...args], { input, encoding: "utf8", maxBuffer: 256 << 20 });
  if (py.error) return undefined;
  if (py.status !== 0) throw new Error(`python3 failed (${py.status}): ${py.stderr}`);
  return py.stdout;
}

export function skipWithoutPython(ctx: Mocha.Context): void {
  if (spawnSync("python3", ["--version"]).error) {
    console.log("      skipped: python3 is not available (parity with the recipe's Python needs it)");
    ctx.skip();
  }
}

export type RawRow = Record<string, unknown> & { id: string; context: [string, string[]][] };

export function readRows(file: string): RawRow[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RawRow);
}

export function writeJsonl(file: string, rows: unknown[]): string {
  writeFileSync(file, rows.map((r) => JSON.stringify(r) + "\n").join(""));
  return file;
}

/**
 * A record with the strings that trip up ports: controls, quotes, backslashes, DEL, U+2028, emoji,
 * and leading/trailing whitespace that Python's strip() and JavaScript's trim() disagree about.
 */
export function nastyRow(id: string): RawRow {
  return {
    id,
    question: 'Ctrl \x00\x01\x08\x0b\x0c\x1b\x1f DEL\x7f "quoted" back\\slash /slash \u2028\u2029 😀 é 中 \t\r\n end',
    answer: "ΟΔΥΣΣΕΥΣ \ufeff",
    type: "bridge",
    level: "hard",
    context: [
      ["Title \u0085 with \u00a0 spaces", ["\x1c\x1d\x85\u3000 leading", " middle ", "trailing \u2029\x1f\u205f"]],
      ["BOM \ufeff title", ["\ufeff kept BOM \ufeff"]],
      ["Only spaces", [" ", "\u3000"]],
      ["Emoji 😀 \u2028", []],
    ],
  };
}

/** Runs a CLI command in-process, collecting what it prints with console.log / console.error. */
export async function capturedOutput(fn: () => Promise<void>): Promise<{ out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => void out.push(a.join(" "));
  console.error = (...a: unknown[]) => void err.push(a.join(" "));
  try {
    await fn();
  } finally {
    console.log = log;
    console.error = error;
  }
  return { out: out.join("\n"), err: err.join("\n") };
}

/** The hub's distractor schema (the columns prepare reads), written with hyparquet-writer. */
export async function writeHubParquet(
  file: string,
  rows: RawRow[],
  columns = ["id", "question", "answer", "type", "level", "context"],
): Promise<Buffer> {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const str = (name: string) =>
    ({ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" }) as const;
  const list = (name: string, children: number) => [
    { name, repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: children },
  ];
  const contextSchema = [
    { name: "context", repetition_type: "OPTIONAL", num_children: 2 },
    ...list("title", 1),
    str("element"),
    ...list("sentences", 1),
    { name: "element", repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    str("element"),
  ];
  const schema = [
    { name: "schema", num_children: columns.length },
    ...columns.flatMap((c) => (c === "context" ? contextSchema : [str(c)])),
  ];
  const columnData = columns.map((name) =>
    name === "context"
      ? { name, data: rows.map((r) => ({ title: r.context.map((c) => c[0]), sentences: r.context.map((c) => c[1]) })) }
      : { name, data: rows.map((r) => (r[name] ?? null) as string | null) },
  );
  const buffer = parquetWriteBuffer({
    columnData,
    // several row groups per file, as on the hub
    rowGroupSize: 37,
    schema: schema as never,
  });
  const bytes = Buffer.from(buffer);
  writeFileSync(file, bytes);
  return bytes;
}
