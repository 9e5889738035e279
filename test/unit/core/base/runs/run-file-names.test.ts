/**
 * Run-file names are written once, in RUN_FILES (run-folder.ts): a literal "summary.json" elsewhere
 * in src/ is a second copy that a rename would miss. The tinker-cookbook reader (views/interop/) is
 * exempt: its names are the cookbook's own, which only happen to match some of ours.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { RUN_FILES } from "../../../../../src/core/base/runs/run-folder";

const SRC = resolve(__dirname, "..", "..", "..", "..", "..", "src");
const EXEMPT = [join("core", "base", "runs", "run-folder.ts"), join("core", "views", "interop") + sep];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.(ts|tsx|mjs|js)$/.test(n) ? [p] : [];
  });
}

/** The code of a file without its comments (docs may name the files they describe). */
function codeOnly(text: string): string[] {
  return text.split("\n").map((line) => {
    const t = line.trim();
    if (t.startsWith("//") || t.startsWith("/*") || t.startsWith("*")) return "";
    return line.replace(/\s\/\/\s.*$/, "");
  });
}

// ".lock" is too short to tell apart from other uses; every other name is matched as a whole string
// or the last part of a path inside quotes or a template.
const NAMES = Object.values(RUN_FILES).filter((n) => n !== RUN_FILES.lock);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const LITERAL = new RegExp(`["'\`/](${NAMES.map(escape).join("|")})["'\`]`);

describe("runs: run-file names only from RUN_FILES", () => {
  it("no file in src/ outside run-folder.ts (and the cookbook reader) spells a run-file name", () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (EXEMPT.some((e) => rel === e || rel.startsWith(e))) continue;
      codeOnly(readFileSync(file, "utf8")).forEach((line, i) => {
        const m = LITERAL.exec(line);
        if (m) found.push(`src/${rel}:${i + 1}: "${m[1]}" (use RUN_FILES)`);
      });
    }
    assert.deepEqual(found, []);
  });

  it("the scan sees a literal name and ignores comments", () => {
    assert.ok(LITERAL.test('join(dir, "summary.json")'));
    assert.ok(LITERAL.test("`${dir}/episodes.jsonl`"));
    assert.deepEqual(codeOnly(' * writes "summary.json"\nconst a = 1; // see "progress.json"').filter(Boolean), [
      "const a = 1;",
    ]);
  });
});
