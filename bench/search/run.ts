/**
 * Search benchmark: our BM25 index vs bm25s (the recipe's library), in the same run.
 *
 *   python3 -m venv bench/.venv && bench/.venv/bin/pip install bm25s PyStemmer numba
 *   npx tsx bench/search/run.ts            full: 507,494 synthetic paragraphs, 500+500 queries
 *   npx tsx bench/search/run.ts --quick    50,000 paragraphs, 200+200 queries (development)
 *   options: --docs N  --queries N  --no-bm25s  --hotpot DIR (default ../shared/data/hotpotqa)
 *            --rounds R (default 5): query passes per system, each in a fresh process
 *   npx tsx bench/search/run.ts --scale 507k|5.2M|21M   issue 28's measurement at that scale (scale-run.ts):
 *            --queries N (500)  --rounds R (5)  --no-bm25s  --exact-sample N (200)  --reuse-index  --clean
 *            --bm25s-cap-gib G (12): bm25s's build is stopped past G GiB resident and reported as not fitting
 *            --build-cap-gib G (16): the same guard for our build
 *
 * Table 1 (synthetic corpus, Wikipedia-like statistics, see synthetic-corpus.ts): build time, peak
 * RSS of the building process, size on disk, load time, query p50/p99 for short (3–8 words) and
 * long (12–20 words, question-like) queries, top-3 agreement with bm25s (exact id sets, and
 * ties-aware: the same three scores), and our own exhaustive scoring (no pruning) as the in-repo
 * reference (query times of the first round); then the query times of every round and the ratios
 * against bm25s (numba) next to the targets: each round runs both systems' queries in fresh
 * processes, the order alternating, and a query target's ratio is the median of the rounds'.
 * Also: stemmer parity with PyStemmer over a large vocabulary and tokenizer parity with bm25s on
 * the real paragraphs.
 * Table 2 (real text): recall@3 of the gold supporting paragraphs of the 200 dev questions over the
 * 3,075 real paragraphs, query = the question or each supporting title, ours and bm25s.
 * Work files go to bench/.work (git-ignored); results also to bench/.work/results.json.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { splitWords, TermTokenizer } from "../../src/core/base/search/tokenizer";
import { stemEnglish } from "../../src/core/base/search/english-stemmer";
import { devQuestions, realParagraphs, writeCorpus, type GoldQuestion } from "./real-paragraphs";
import { K, type QueryRun } from "./query-child";
import { queryChildScript } from "./query-child-bundle";
import { agreement, gb, log, mb, median, ms, pct, percentile, sh, table } from "./report";
import { runScale, scaleArg } from "./scale-run";
import { makeQueries, queryParagraphIds, SyntheticCorpus } from "./synthetic-corpus";

const ROOT = resolve(__dirname, "..", "..");
const WORK = join(ROOT, "bench", ".work");
const PYTHON = join(ROOT, "bench", ".venv", "bin", "python");
const RUNNER = join(__dirname, "bm25s_runner.py");
const DEFAULT_HOTPOT = resolve(ROOT, "..", "shared", "data", "hotpotqa");

interface Args {
  docs: number;
  queries: number;
  bm25s: boolean;
  hotpot: string;
  /** Query passes per system, alternating ours and bm25s (each in a fresh process). */
  rounds: number;
}

function parseArgs(argv: string[]): Args {
  const quick = argv.includes("--quick");
  const str = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const val = (name: string) => (str(name) === undefined ? undefined : Number(str(name)));
  return {
    docs: val("--docs") ?? (quick ? 50_000 : 507_494),
    queries: val("--queries") ?? (quick ? 200 : 500),
    bm25s: !argv.includes("--no-bm25s"),
    hotpot: resolve(str("--hotpot") ?? DEFAULT_HOTPOT),
    rounds: val("--rounds") ?? 5,
  };
}

interface BuildStats {
  seconds: number;
  peak_rss: number;
  bytes: number;
}
interface SystemRun {
  build: BuildStats;
  load: number;
  runs: Record<string, QueryRun>;
}

function ourBuild(corpus: string, dir: string): BuildStats {
  const out = sh(process.execPath, [...process.execArgv, join(__dirname, "build-child.ts"), corpus, dir]);
  return JSON.parse(out.trim().split("\n").pop()!) as BuildStats;
}

/** One pass of our queries in a fresh process (query-child.ts, bundled), as bm25s gets one in its runner. */
function ourQueries(dir: string, queriesFile: string, exhaustive = false): { load: number; run: QueryRun } {
  const out = join(WORK, "ours-query.json");
  sh(process.execPath, [queryChildScript(WORK), dir, queriesFile, out, ...(exhaustive ? ["exhaustive"] : [])]);
  return JSON.parse(readFileSync(out, "utf8")) as { load: number; run: QueryRun };
}

function bm25sBuild(corpus: string, dir: string, tag: string): BuildStats {
  const buildOut = join(WORK, `${tag}-bm25s-build.json`);
  sh(PYTHON, [RUNNER, "build", corpus, dir, buildOut]);
  return JSON.parse(readFileSync(buildOut, "utf8")) as BuildStats;
}

/** One pass of bm25s's queries in a fresh Python process, per backend. */
function bm25sQueries(
  dir: string,
  queriesFile: string,
  tag: string,
  backends: string[],
): { load: number; runs: Record<string, QueryRun> } {
  const queryOut = join(WORK, `${tag}-bm25s-query.json`);
  sh(PYTHON, [RUNNER, "query", dir, queriesFile, String(K), queryOut, backends.join(",")]);
  const q = JSON.parse(readFileSync(queryOut, "utf8")) as { load_seconds: number; backends: Record<string, QueryRun> };
  return { load: q.load_seconds, runs: q.backends };
}

/** Stems every distinct word of the real paragraphs and a large synthetic sample with both stemmers. */
function stemmerParity(words: Set<string>): { words: number; mismatches: string[] } {
  const list = [...words];
  const inFile = join(WORK, "stem-words.txt");
  const outFile = join(WORK, "stem-pystemmer.txt");
  writeFileSync(inFile, list.join("\n"));
  sh(PYTHON, [RUNNER, "stems", inFile, outFile]);
  const expected = readFileSync(outFile, "utf8").split("\n");
  const mismatches: string[] = [];
  list.forEach((w, i) => {
    const got = stemEnglish(w);
    if (got !== expected[i]) mismatches.push(`${w}: ${got} ≠ ${expected[i]}`);
  });
  return { words: list.length, mismatches };
}

/** Token lists of every real paragraph: ours vs bm25s.tokenize. */
function tokenizerParity(
  corpus: string,
  paragraphs: { title: string; text: string }[],
): { docs: number; same: number } {
  const out = join(WORK, "real-bm25s-tokens.json");
  sh(PYTHON, [RUNNER, "tokens", corpus, out]);
  const theirs = JSON.parse(readFileSync(out, "utf8")) as string[][];
  const tok = new TermTokenizer();
  let same = 0;
  paragraphs.forEach((p, i) => {
    if (tok.terms(`${p.title}. ${p.text}`).join(" ") === theirs[i].join(" ")) same++;
  });
  return { docs: paragraphs.length, same };
}

function recall(
  questions: GoldQuestion[],
  titleOf: (id: number) => string,
  run: QueryRun,
): { question: number; title: number } {
  let q = 0;
  questions.forEach((g, i) => {
    const got = new Set(run.ids[i].map(titleOf));
    q += g.supporting.filter((t) => got.has(t)).length / g.supporting.length;
  });
  let hits = 0;
  let n = 0;
  let at = questions.length;
  for (const g of questions) {
    for (const t of g.supporting) {
      if (run.ids[at++].map(titleOf).includes(t)) hits++;
      n++;
    }
  }
  return { question: q / questions.length, title: hits / n };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const args = parseArgs(argv);
  mkdirSync(WORK, { recursive: true });
  if (args.bm25s && !existsSync(PYTHON)) {
    throw new Error(
      "bench/.venv is missing: python3 -m venv bench/.venv && bench/.venv/bin/pip install bm25s PyStemmer numba (or pass --no-bm25s)",
    );
  }
  const scale = scaleArg(argv);
  if (scale) {
    const num = (name: string, otherwise: number) => {
      const i = argv.indexOf(name);
      return i >= 0 ? Number(argv[i + 1]) : otherwise;
    };
    return runScale(
      {
        scale,
        queries: num("--queries", 500),
        rounds: num("--rounds", 5),
        bm25s: args.bm25s,
        bm25sCapBytes: num("--bm25s-cap-gib", 12) * 2 ** 30,
        buildCapBytes: num("--build-cap-gib", 16) * 2 ** 30,
        exactSample: num("--exact-sample", 200),
        reuseIndex: argv.includes("--reuse-index"),
        clean: argv.includes("--clean"),
        python: PYTHON,
        runner: RUNNER,
      },
      WORK,
    );
  }
  const loadBefore = loadavg();
  log(`load average ${loadBefore.map((x) => x.toFixed(2)).join(" ")}`);

  // --- synthetic corpus (cached by size: generation is deterministic) ---
  const tag = `syn${args.docs}`;
  const corpus = join(WORK, `${tag}.jsonl`);
  const queriesFile = join(WORK, `${tag}-${args.queries}-queries.json`);
  const generator = new SyntheticCorpus({ docs: args.docs });
  if (!existsSync(corpus) || !existsSync(queriesFile)) {
    log(`writing ${args.docs.toLocaleString()} synthetic paragraphs to ${corpus}`);
    const kept = await generator.write(corpus, queryParagraphIds(args.docs, args.queries));
    writeFileSync(queriesFile, JSON.stringify(makeQueries(kept, args.queries)));
  }
  const { short, long } = JSON.parse(readFileSync(queriesFile, "utf8")) as { short: string[]; long: string[] };
  const queries = [...short, ...long];
  const queryList = join(WORK, `${tag}-queries.json`); // both systems read this one list
  writeFileSync(queryList, JSON.stringify(queries));

  log("ours: build");
  const oursDir = join(WORK, `${tag}-ours`);
  const oursBuild = ourBuild(corpus, oursDir);
  log(`ours: built in ${oursBuild.seconds.toFixed(1)} s`);
  const theirsDir = join(WORK, `${tag}-bm25s`);
  let theirsBuild: BuildStats | undefined;
  if (args.bm25s) {
    log("bm25s: build");
    theirsBuild = bm25sBuild(corpus, theirsDir, tag);
  }
  // Query passes: each system in a fresh process per round, the order alternating, so a slow
  // spell of the shared machine lands on both; the ratios below are the rounds' medians.
  const oursRounds: { load: number; run: QueryRun }[] = [];
  const theirRounds: QueryRun[] = [];
  for (let r = 0; r < args.rounds; r++) {
    log(`queries, round ${r + 1} of ${args.rounds}`);
    const passes = [() => oursRounds.push(ourQueries(oursDir, queryList))];
    if (theirsBuild) passes.push(() => theirRounds.push(bm25sQueries(theirsDir, queryList, tag, ["numba"]).runs.numba));
    if (r % 2 === 1) passes.reverse();
    for (const pass of passes) pass();
  }
  const oursQ = oursRounds[0];
  const ours: SystemRun = { build: oursBuild, load: median(oursRounds.map((r) => r.load)), runs: { ours: oursQ.run } };
  log("ours: exhaustive scoring (the in-repo reference)");
  const exhaustiveQ = ourQueries(oursDir, queryList, true);
  const identical = oursQ.run.ids.filter(
    (ids, i) =>
      JSON.stringify([ids, oursQ.run.scores[i]]) ===
      JSON.stringify([exhaustiveQ.run.ids[i], exhaustiveQ.run.scores[i]]),
  ).length;

  let theirs: SystemRun | undefined;
  if (theirsBuild) {
    log("bm25s: the numpy backend (table 1 only)");
    const numpy = bm25sQueries(theirsDir, queryList, tag, ["numpy"]);
    theirs = { build: theirsBuild, load: numpy.load, runs: { numpy: numpy.runs.numpy, numba: theirRounds[0] } };
  }

  // --- real paragraphs (skipped without the shared data: a user's clone has none) ---
  const rows2: string[][] = [
    [
      "real paragraphs (3,075), 200 dev questions",
      "recall@3, query = question",
      "recall@3, query = supporting title",
      "top-3 agreement (exact / ties-aware)",
    ],
  ];
  let realNote = "";
  let stemming: { words: number; mismatches: string[] } | undefined;
  let tokens: { docs: number; same: number } | undefined;
  if (!existsSync(join(args.hotpot, "hotpotqa_distractor_dev_partial.jsonl"))) {
    realNote = `real-text anchor skipped: no HotpotQA records in ${args.hotpot} (pass --hotpot DIR)`;
    log(realNote);
  } else {
    log("real paragraphs");
    const paragraphs = realParagraphs(args.hotpot);
    const questions = devQuestions(args.hotpot);
    const realCorpus = join(WORK, "real-corpus.jsonl");
    writeCorpus(paragraphs, realCorpus);
    const realQueries = [...questions.map((q) => q.question), ...questions.flatMap((q) => q.supporting)];
    const realQueryList = join(WORK, "real-queries.json");
    writeFileSync(realQueryList, JSON.stringify(realQueries));
    const realOursDir = join(WORK, "real-ours");
    const realOursBuild = ourBuild(realCorpus, realOursDir);
    const realOurs = ourQueries(realOursDir, realQueryList);
    realNote = `ours built in ${realOursBuild.seconds.toFixed(2)} s, loaded in ${realOurs.load.toFixed(3)} s`;
    const titleOf = (id: number) => paragraphs[id].title;
    rows2.push([
      "ours",
      recall(questions, titleOf, realOurs.run).question.toFixed(3),
      recall(questions, titleOf, realOurs.run).title.toFixed(3),
      "—",
    ]);
    if (args.bm25s) {
      bm25sBuild(realCorpus, join(WORK, "real-bm25s"), "real");
      const realTheirs = bm25sQueries(join(WORK, "real-bm25s"), realQueryList, "real", ["numba"]).runs.numba;
      const r = recall(questions, titleOf, realTheirs);
      const agree = agreement(realOurs.run, realTheirs, 0, realQueries.length);
      rows2.push([
        "bm25s (numba)",
        r.question.toFixed(3),
        r.title.toFixed(3),
        `${pct(agree.exact)} / ${pct(agree.tiesAware)}`,
      ]);
      log("stemmer and tokenizer parity");
      const vocab = new Set<string>();
      for (const p of paragraphs) for (const w of splitWords(`${p.title}. ${p.text}`)) vocab.add(w);
      for (let i = 0; i < 300_000 && i < generator.words.length; i++)
        vocab.add(generator.words[Math.floor((i * 7919) % generator.words.length)]);
      stemming = stemmerParity(vocab);
      tokens = tokenizerParity(realCorpus, paragraphs);
    }
  }

  // --- table 1 ---
  const S = short.length;
  const L = queries.length;
  const rows: string[][] = [
    [
      `${args.docs.toLocaleString()} synthetic paragraphs`,
      "build",
      "peak RSS",
      "index size",
      "load",
      "short p50",
      "short p99",
      "long p50",
      "long p99",
      "top-3 agree short",
      "top-3 agree long",
    ],
  ];
  const addRow = (name: string, sys: SystemRun, run: QueryRun, agreeWith?: QueryRun) => {
    const a = agreeWith ? agreement(run, agreeWith, 0, S) : undefined;
    const b = agreeWith ? agreement(run, agreeWith, S, L) : undefined;
    rows.push([
      name,
      `${sys.build.seconds.toFixed(1)} s`,
      gb(sys.build.peak_rss),
      mb(sys.build.bytes),
      `${sys.load.toFixed(2)} s`,
      ms(percentile(run.seconds.slice(0, S), 0.5)),
      ms(percentile(run.seconds.slice(0, S), 0.99)),
      ms(percentile(run.seconds.slice(S, L), 0.5)),
      ms(percentile(run.seconds.slice(S, L), 0.99)),
      a ? `${pct(a.exact)} / ${pct(a.tiesAware)}` : "—",
      b ? `${pct(b.exact)} / ${pct(b.tiesAware)}` : "—",
    ]);
  };
  addRow("ours (window block-max MaxScore)", ours, ours.runs.ours, theirs?.runs.numba);
  addRow("ours, exhaustive (reference)", ours, exhaustiveQ.run, theirs?.runs.numba);
  if (theirs) {
    addRow("bm25s numpy", theirs, theirs.runs.numpy);
    addRow("bm25s numba", theirs, theirs.runs.numba);
  }
  const loadAfter = loadavg();
  console.log(
    `\nSearch benchmark (${new Date().toISOString()}; load average before ${loadBefore[0].toFixed(2)}, after ${loadAfter[0].toFixed(2)}; 2 shared cores)\n`,
  );
  console.log(table(rows));
  const cpuLine = (name: string, run: QueryRun) =>
    `${name} ${ms(percentile(run.cpu_seconds.slice(0, S), 0.5))} / ${ms(percentile(run.cpu_seconds.slice(S, L), 0.5))}`;
  console.log(
    `\nCPU-time p50 per query, short / long (less sensitive to other jobs on the shared cores): ` +
      [
        cpuLine("ours", ours.runs.ours),
        ...(theirs ? [cpuLine("bm25s numpy", theirs.runs.numpy), cpuLine("bm25s numba", theirs.runs.numba)] : []),
      ].join("; "),
  );
  console.log(
    `Top-3 agreement is against bm25s numba: exact id sets / ties-aware (same three scores). Queries: ${S} short (3–8 words), ${L - S} long (12–20 words).`,
  );
  console.log(`Pruned results identical to exhaustive scoring (ids and scores, top ${K}): ${identical}/${L} queries.`);
  const p = (run: QueryRun, from: number, to: number, q: number) => 1000 * percentile(run.seconds.slice(from, to), q);
  const reference = theirs ? "bm25s numba" : "ours exhaustive";
  // Round r of ours against round r of the reference (without bm25s: every round against the one exhaustive pass).
  const pairs: [QueryRun, QueryRun][] = oursRounds.map((o, r) => [o.run, theirs ? theirRounds[r] : exhaustiveQ.run]);
  const queryTargets: [string, number, number, number, number][] = [
    ["query p50, short (ms)", 0, S, 0.5, 0.5],
    ["query p50, question-length (ms)", S, L, 0.5, 0.6],
    ["query p99, question-length (ms)", S, L, 0.99, 1.0],
  ];
  const roundRows = [
    [
      "round",
      ...queryTargets.flatMap(([what]) => [
        `ours ${what.replace("query ", "").replace(" (ms)", "")}`,
        "reference",
        "ratio",
      ]),
    ],
  ];
  pairs.forEach(([a, b], r) =>
    roundRows.push([
      String(r + 1),
      ...queryTargets.flatMap(([, from, to, q]) => [
        p(a, from, to, q).toFixed(2),
        p(b, from, to, q).toFixed(2),
        `${(p(a, from, to, q) / p(b, from, to, q)).toFixed(2)}×`,
      ]),
    ]),
  );
  const ratioRows = [["what", "ours", "reference", "value", "ratio", "target", "met"]];
  const addTarget = (what: string, a: number, who: string, b: number, ratio: number, target: number, rounds = "") =>
    ratioRows.push([
      what,
      a.toFixed(2),
      who,
      b.toFixed(2),
      `${ratio.toFixed(2)}×${rounds}`,
      `≤ ${target}×`,
      ratio <= target ? "yes" : "NO",
    ]);
  if (theirs) {
    addTarget(
      "build time (s)",
      ours.build.seconds,
      "bm25s",
      theirs.build.seconds,
      ours.build.seconds / theirs.build.seconds,
      0.3,
    );
    addTarget(
      "peak RSS while building (GiB)",
      ours.build.peak_rss / 2 ** 30,
      "bm25s",
      theirs.build.peak_rss / 2 ** 30,
      ours.build.peak_rss / theirs.build.peak_rss,
      0.5,
    );
  }
  for (const [what, from, to, q, target] of queryTargets) {
    const ratios = pairs.map(([a, b]) => p(a, from, to, q) / p(b, from, to, q));
    const each = pairs.length > 1 ? ` (rounds ${ratios.map((x) => x.toFixed(2)).join(" / ")})` : "";
    addTarget(
      what,
      median(pairs.map(([a]) => p(a, from, to, q))),
      reference,
      median(pairs.map(([, b]) => p(b, from, to, q))),
      median(ratios),
      target,
      each,
    );
  }
  ratioRows.push([
    "index load, CRC check included (s)",
    ours.load.toFixed(2),
    "—",
    "—",
    "—",
    "< 0.5 s",
    ours.load < 0.5 ? "yes" : "NO",
  ]);
  if (theirs) {
    const a = agreement(ours.runs.ours, theirs.runs.numba, 0, L);
    ratioRows.push([
      "top-3 agreement with bm25s, ties-aware",
      pct(a.tiesAware),
      "—",
      "—",
      "—",
      "≥ 99.5%",
      a.tiesAware >= 0.995 ? "yes" : "NO",
    ]);
  }
  const how = theirs
    ? `ours and ${reference} each in a fresh process, their order alternating`
    : `each round of ours, in a fresh process, against the one pass of ${reference}`;
  console.log(`\nQuery times per round (wall-clock ms; ${how}):\n`);
  console.log(table(roundRows));
  console.log(
    `\nRatios against ${reference}, measured in this run (wall-clock; query times: medians of the ${pairs.length} rounds, the ratio the median of the rounds' ratios; load: the rounds' median):\n`,
  );
  console.log(table(ratioRows));
  console.log(`\nReal text (${realNote})\n`);
  if (rows2.length > 1) console.log(table(rows2));
  if (stemming)
    console.log(
      `\nStemmer parity with PyStemmer: ${stemming.words - stemming.mismatches.length}/${stemming.words} words identical${stemming.mismatches.length ? `; first mismatches: ${stemming.mismatches.slice(0, 10).join(", ")}` : ""}.`,
    );
  if (tokens)
    console.log(
      `Tokenizer parity with bm25s.tokenize on the real paragraphs: ${tokens.same}/${tokens.docs} paragraphs give identical token lists.`,
    );
  writeFileSync(
    join(WORK, "results.json"),
    JSON.stringify(
      {
        args,
        ours: { ...ours, runs: undefined },
        bm25s: theirs ? { ...theirs, runs: undefined } : undefined,
        rows,
        roundRows,
        ratioRows,
        rows2,
        identical,
        stemming,
        tokens,
        loadBefore,
        loadAfter,
      },
      null,
      2,
    ),
  );
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
