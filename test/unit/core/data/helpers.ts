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
