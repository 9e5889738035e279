/**
 * Which unit test files cover a source file, from the import graph: the tests nearest to it.
 *
 * Stryker's perTest coverage then picks, per mutant, the tests that reach it; but it learns that
 * from a dry run of every test file it is given, and the whole unit suite takes many minutes. So
 * the dry run gets only the unit test files whose imports reach the source file in the fewest
 * steps (an index.ts that re-exports is no step): the file's own test and its nearest users, not
 * every test that loads it through a step runner (one step more was 93 files for run-folder.ts).
 * Where that misses the tests that matter, `--tests` names them (run.mjs).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function resolveImport(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts"), base.replace(/\.js$/, ".ts")]) {
    if (/\.(ts|mts)$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** importedBy[file] = files that import it (absolute paths). */
function reverseGraph(files) {
  const importedBy = new Map();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(file, m[1]);
      if (!target) continue;
      if (!importedBy.has(target)) importedBy.set(target, new Set());
      importedBy.get(target).add(file);
    }
  }
  return importedBy;
}

const isBarrel = (file) => /[\\/]index\.ts$/.test(file);

/**
 * Test files (repo-relative) for the given source files (repo-relative), nearest first.
 * `extraSteps`: how many import steps beyond the nearest test to include.
 */
export function selectTests(repo, sources, extraSteps = 0) {
  const files = [...walk(join(repo, "src")), ...walk(join(repo, "test")), ...walk(join(repo, "bench"))];
  const unitRoot = join(repo, "test", "unit");
  const importedBy = reverseGraph(files);
  const chosen = new Map(); // test file → distance
  for (const source of sources) {
    // 0-1 breadth-first search over "is imported by": a barrel costs nothing.
    const distance = new Map([[resolve(repo, source), 0]]);
    const queue = [resolve(repo, source)];
    while (queue.length > 0) {
      const file = queue.shift();
      for (const importer of importedBy.get(file) ?? []) {
        const d = distance.get(file) + (isBarrel(importer) ? 0 : 1);
        if (distance.has(importer) && distance.get(importer) <= d) continue;
        distance.set(importer, d);
        if (isBarrel(importer)) queue.unshift(importer);
        else queue.push(importer);
      }
    }
    const tests = [...distance].filter(([f]) => f.endsWith(".test.ts") && f.startsWith(unitRoot));
    if (tests.length === 0) continue;
    const nearest = Math.min(...tests.map(([, d]) => d));
    for (const [f, d] of tests) {
      if (d > nearest + extraSteps) continue;
      const rel = relative(repo, f);
      chosen.set(rel, Math.min(d, chosen.get(rel) ?? Infinity));
    }
  }
  return [...chosen].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([f]) => f);
}
