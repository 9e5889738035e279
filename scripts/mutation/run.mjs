/**
 * npm run test:mutation [-- FILES…] [--tests FRAGMENT,…] [--no-check]
 *
 * Mutation testing with StrykerJS (settings and why: stryker.config.mjs). Mutates FILES (default:
 * the src/**\/*.ts files changed against main, committed or not), runs only the unit test files
 * nearest to them (select-tests.mjs; `--tests` picks test files by path fragment instead, as
 * `npm run test:unit -- FRAGMENT` does, in the order given), then prints a table per module (mutants, killed,
 * survived, timeout, no coverage, score) and every surviving mutant with file:line, also written
 * to .cache/stryker/report.md.
 *
 * `--no-check` leaves out the TypeScript checker: on a loaded 2-core machine it took most of the CPU
 * of a run (115 s of the first 130 s on ledger.ts, which most of src/ imports; each mutant re-checks
 * its importers). A mutant that would not compile then runs under tsx (types stripped) and counts
 * as killed or survived like any other: read each survivor, and rerun with the checker to settle one.
 *
 * Incremental: Stryker reuses the result of a mutant whose code and covering tests did not change.
 * Its one incremental file would hold only the last run's files, so this keeps one per source file
 * (.cache/stryker/incremental/) and joins those of the files mutated now before each run: a rerun
 * costs only what changed, whatever was run in between.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Stryker } from "@stryker-mutator/core";
import config from "../../stryker.config.mjs";
import { selectTests } from "./select-tests.mjs";
import { moduleTable, survivorLines } from "./report.mjs";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CACHE = join(REPO, ".cache", "stryker");
const PER_FILE = join(CACHE, "incremental");

function git(...args) {
  return execFileSync("git", args, { cwd: REPO, encoding: "utf8" }).split("\n").filter(Boolean);
}

/** src/**\/*.ts changed against main: committed on this branch, staged, unstaged or untracked. */
function changedSources() {
  const changed = new Set([
    ...git("diff", "--name-only", "main...HEAD"),
    ...git("diff", "--name-only", "HEAD"),
    ...git("ls-files", "--others", "--exclude-standard"),
  ]);
  return [...changed].filter((f) => /^src\/.*\.ts$/.test(f) && !f.endsWith(".d.ts") && existsSync(join(REPO, f)));
}

function parseArgs(argv) {
  const files = [];
  let testFragments;
  let check = true;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tests") testFragments = (argv[++i] ?? "").split(",").filter(Boolean);
    else if (argv[i] === "--no-check") check = false;
    else files.push(relative(REPO, resolve(argv[i]))); // a :LINES suffix survives resolve and relative
  }
  return { files, testFragments, check };
}

function unitTestsMatching(fragments) {
  const root = join(REPO, "test", "unit");
  const all = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".test.ts")) all.push(join(dir, e.name));
    }
  };
  walk(root);
  // In the order the fragments are given: a mutant's run stops at its first failing test, so the fast files go first.
  const picked = fragments.flatMap((k) => all.filter((f) => relative(root, f).includes(k)));
  return [...new Set(picked)].map((f) => relative(REPO, f));
}

/** FILE or FILE:LINES (Stryker's "src/x.ts:10-40", to mutate part of a file): the store is per file. */
const storeName = (target) => join(PER_FILE, `${target.replace(/:[\d:-]+$/, "").replace(/[\\/]/g, "__")}.json`);

/** Joins the stored per-file reports of `files` into the incremental file Stryker reads. */
function joinIncremental(files) {
  const joined = { files: {}, testFiles: {} };
  for (const file of files) {
    if (!existsSync(storeName(file))) continue;
    const stored = JSON.parse(readFileSync(storeName(file), "utf8"));
    Object.assign(joined, { ...stored, files: joined.files, testFiles: joined.testFiles });
    Object.assign(joined.files, stored.files);
    Object.assign(joined.testFiles, stored.testFiles ?? {});
  }
  const target = join(REPO, config.incrementalFile);
  mkdirSync(dirname(target), { recursive: true });
  if (Object.keys(joined.files).length > 0) writeFileSync(target, JSON.stringify(joined));
  else writeFileSync(target, JSON.stringify({ schemaVersion: "2", thresholds: { high: 80, low: 60 }, files: {} }));
}

/** Splits the incremental file Stryker wrote back into one store per source file. */
function splitIncremental() {
  const target = join(REPO, config.incrementalFile);
  if (!existsSync(target)) return;
  const report = JSON.parse(readFileSync(target, "utf8"));
  mkdirSync(PER_FILE, { recursive: true });
  for (const [file, result] of Object.entries(report.files ?? {})) {
    writeFileSync(storeName(file), JSON.stringify({ ...report, files: { [file]: result } }));
  }
}

/** CPU seconds of this process and its waited-for children (Stryker's workers and checker), from /proc. */
function cpuSeconds() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100; // utime stime cutime cstime
  } catch {
    return NaN; // not Linux
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const files = args.files.length > 0 ? args.files : changedSources();
  if (files.length === 0) {
    console.log("test:mutation: no src/**/*.ts file changed against main; name files to mutate");
    return;
  }
  const sources = files.map((f) => f.replace(/:[\d:-]+$/, ""));
  const tests = args.testFragments ? unitTestsMatching(args.testFragments) : selectTests(REPO, sources);
  if (tests.length === 0) {
    console.log(`test:mutation: no unit test file reaches ${sources.join(", ")}; name some with --tests`);
    process.exitCode = 1;
    return;
  }
  console.log(`test:mutation: mutating ${files.join(", ")}\n  with ${tests.length} test file(s): ${tests.join(", ")}`);
  // The sandbox copy is a few folders deeper than the repository: point the tests at the real data.
  const shared = resolve(REPO, "..", "shared", "data");
  if (!process.env.AGENT_LAB_SHARED_DATA && existsSync(shared)) process.env.AGENT_LAB_SHARED_DATA = shared;

  joinIncremental(files);
  const wallStart = Date.now();
  const cpuStart = cpuSeconds();
  const stryker = new Stryker({
    mutate: files,
    mochaOptions: { ...config.mochaOptions, spec: tests },
    ...(args.check ? {} : { checkers: [] }),
  });
  const results = await stryker.runMutationTest();
  const wall = (Date.now() - wallStart) / 1000;
  const cpu = cpuSeconds() - cpuStart;
  splitIncremental();

  const table = moduleTable(results);
  const survivors = survivorLines(results, REPO);
  const timing = `${files.length} file(s), ${tests.length} test file(s): ${wall.toFixed(0)} s wall, ${cpu.toFixed(0)} s CPU (this machine, concurrency ${config.concurrency}${args.check ? "" : ", no checker"})`;
  const text = [table, "", `Survivors (${survivors.length}):`, ...survivors.map((s) => `- ${s}`), "", timing].join(
    "\n",
  );
  console.log(`\n${text}`);
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(join(CACHE, "report.md"), `# Mutation testing\n\n${text}\n`);
  console.log(`\nwritten to ${relative(REPO, join(CACHE, "report.md"))}`);
}

await main();
