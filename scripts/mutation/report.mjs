/**
 * The mutation report in bench style: one row per module, then the survivors. Score is Stryker's
 * (killed + timeout) / (killed + timeout + survived + no coverage); mutants that do not compile
 * (the checker's) or crash the runner are left out of it, as Stryker leaves them out.
 */
import { relative } from "node:path";

const DETECTED = new Set(["Killed", "Timeout"]);
const COUNTED = new Set(["Killed", "Timeout", "Survived", "NoCoverage"]);

function pad(cells, widths) {
  return `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
}

export function moduleTable(results) {
  const byFile = new Map();
  for (const r of results) {
    if (!byFile.has(r.fileName)) byFile.set(r.fileName, []);
    byFile.get(r.fileName).push(r);
  }
  const header = ["module", "mutants", "killed", "survived", "timeout", "no coverage", "score"];
  const rows = [...byFile]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, rs]) => {
      const n = (status) => rs.filter((r) => r.status === status).length;
      const counted = rs.filter((r) => COUNTED.has(r.status)).length;
      const detected = rs.filter((r) => DETECTED.has(r.status)).length;
      const score = counted === 0 ? "n/a" : `${((100 * detected) / counted).toFixed(1)}%`;
      const module = relative(process.cwd(), file).replace(/^src\//, "");
      return [module, counted, n("Killed"), n("Survived"), n("Timeout"), n("NoCoverage"), score];
    });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  return [
    pad(header, widths),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map((r) => pad(r, widths)),
  ].join("\n");
}

/** "src/x.ts:12:5 EqualityOperator: `b >= need` → `b > need`" for every survivor and uncovered mutant. */
export function survivorLines(results, repo) {
  return results
    .filter((r) => r.status === "Survived" || r.status === "NoCoverage")
    .sort((a, b) => a.fileName.localeCompare(b.fileName) || a.location.start.line - b.location.start.line)
    .map((r) => {
      const where = `${relative(repo, r.fileName)}:${r.location.start.line}:${r.location.start.column}`;
      const replacement = (r.replacement ?? "").replace(/\s+/g, " ").slice(0, 100);
      const tag = r.status === "NoCoverage" ? " (no coverage)" : "";
      return `${where} ${r.mutatorName}${tag}: → \`${replacement}\``;
    });
}
