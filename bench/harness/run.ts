/**
 * Harness and statistics benchmark: prints one table.
 *
 *   npx tsx bench/harness/run.ts                 real HotpotQA paragraphs from ../shared/data
 *   npx tsx bench/harness/run.ts --corpus demo   the synthetic demo corpus (no shared data needed)
 *   options: --episodes N (default 300)  --delay-ms D (cross-check with a sleeping policy)
 *
 * 1. The harness's own cost per model turn, with a policy that costs nothing: replies are encoded
 *    before the clock starts and handed back instantly, so the measured time is only what the
 *    harness adds — tokenising the prompt, decoding and parsing the reply, BM25 search (the real
 *    index over the real paragraphs), stitching the result turn, scoring, and recording the
 *    episode to episodes.jsonl. Reported in ms per turn and as a share of a 300 ms sampler call
 *    (target ≤ 0.5%). With --delay-ms D the policy sleeps D ms per turn instead, and the overhead is
 *    (wall − turns × D) / turns: a cross-check that includes timer overshoot (so it reads higher).
 * 2. The paired bootstrap of `agent-lab ablate` for 500 questions × 10,000 resamples (target
 *    < 100 ms), and a whole `ablate()` of two 500-question runs (bootstrap, sign-flip test,
 *    McNemar, flips).
 * Work files go to bench/.work/harness (git-ignored).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ablate, bootstrapMeans, percentileInterval, type AblationInput } from "../../src/core/steps/ablate";
import { Xoshiro128 } from "../../src/core/base/stats/prng";
import { offlineTokenizer, replyTokens } from "../../src/core/base/chat";
import type { ChatTokenizer } from "../../src/core/base/chat/tokenizer";
import { generateSyntheticHotpot } from "../../src/core/envs/hotpotqa/synthetic-world";
import { toRecord } from "../../src/core/steps/eval/eval-split";
import { runEpisode } from "../../src/core/envs/hotpotqa/episode";
import type { Policy, PolicyInfo, Sample } from "../../src/core/harness/policy";
import { appendEpisode, ensureRunDir, type EpisodeRecord } from "../../src/core/base/runs/run-files";
import { buildIndex, openIndex, type SearchHit, type Searcher } from "../../src/core/base/search";

const ROOT = resolve(__dirname, "..", "..");
const WORK = join(ROOT, "bench", ".work", "harness");
const HOTPOT = resolve(ROOT, "..", "shared", "data", "hotpotqa");
const SAMPLER_MS = 300;

/** A question with the replies a competent agent would write: search the question, search a supporting title, answer. */
interface Script {
  id: string;
  question: string;
  answers: string[];
  replies: string[];
}

interface HotpotRow {
  id?: string;
  _id?: string;
  question: string;
  answer: string;
  supporting_facts: [string, number][] | { title: string[] };
  context: [string, string[]][] | { title: string[]; sentences: string[][] };
}

/** context and supporting_facts as pairs, whether the record uses lists (the JSON files) or columns (parquet-style). */
function pairs(r: HotpotRow): { context: [string, string][]; supporting: string[] } {
  const context: [string, string][] = Array.isArray(r.context)
    ? r.context.map(([t, s]) => [t, s.join("")])
    : r.context.title.map((t, i) => [t, (r.context as { sentences: string[][] }).sentences[i].join("")]);
  const supporting = Array.isArray(r.supporting_facts) ? r.supporting_facts.map(([t]) => t) : r.supporting_facts.title;
  return { context, supporting: [...new Set(supporting)] };
}

function readCorpusAndScripts(kind: "real" | "demo"): {
  paragraphs: { title: string; text: string }[];
  scripts: Script[];
} {
  let records: HotpotRow[];
  if (kind === "real") {
    if (!existsSync(HOTPOT)) throw new Error(`no ${HOTPOT}: run with --corpus demo`);
    const read = (f: string) =>
      readFileSync(join(HOTPOT, f), "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as HotpotRow);
    records = [...read("hotpotqa_distractor_dev_partial.jsonl"), ...read("hotpotqa_distractor_train_partial.jsonl")];
  } else {
    const data = generateSyntheticHotpot({ seed: 20261129, train: 300, dev: 700 });
    records = [...data.dev, ...data.train] as unknown as HotpotRow[];
  }
  const seen = new Set<string>();
  const paragraphs: { title: string; text: string }[] = [];
  const scripts: Script[] = records.map((r, i) => {
    const { context, supporting } = pairs(r);
    for (const [title, text] of context) {
      if (seen.has(title)) continue;
      seen.add(title);
      paragraphs.push({ title, text });
    }
    const second = supporting[1] ?? supporting[0] ?? r.question;
    return {
      id: r.id ?? r._id ?? String(i),
      question: r.question,
      answers: [r.answer],
      replies: [`<search>${r.question}</search>`, `<search>${second}</search>`, `<answer>${r.answer}</answer>`],
    };
  });
  return { paragraphs, scripts };
}

/** Hands back pre-encoded replies: costs nothing (or sleeps delayMs), so a timer measures the harness alone. */
class InstantPolicy implements Policy {
  readonly endToken: number;
  private turn = 0;
  constructor(
    readonly tokenizer: ChatTokenizer,
    private readonly replies: Sample[],
    private readonly delayMs: number,
  ) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
  }
  async sample(): Promise<Sample> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    return this.replies[this.turn++];
  }
  describe(): PolicyInfo {
    return { kind: "scripted", model: "bench-instant", logprobs: true };
  }
}

/** A searcher that answers at once (the in-process index): what is timed is search itself, not a round trip. */
interface InProcessSearcher extends Searcher {
  search(query: string, k: number): SearchHit[];
}

/** Times every search, to split the harness's cost into search and the rest. */
class TimedSearcher implements Searcher {
  ms = 0;
  calls = 0;
  constructor(private readonly inner: InProcessSearcher) {}
  search(query: string, k: number): SearchHit[] {
    const start = performance.now();
    const hits = this.inner.search(query, k);
    this.ms += performance.now() - start;
    this.calls++;
    return hits;
  }
  describe(): Record<string, unknown> {
    return this.inner.describe();
  }
}

/** Times the tokenizer calls the harness makes (prompt, result turns, reply decoding). */
class TimedTokenizer implements ChatTokenizer {
  encodeMs = 0;
  decodeMs = 0;
  templateMs = 0;
  constructor(private readonly inner: ChatTokenizer) {}
  get name(): string {
    return this.inner.name;
  }
  encode(text: string): number[] {
    const start = performance.now();
    const ids = this.inner.encode(text);
    this.encodeMs += performance.now() - start;
    return ids;
  }
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string {
    const start = performance.now();
    const text = this.inner.decode(ids, options);
    this.decodeMs += performance.now() - start;
    return text;
  }
  tokenId(token: string): number {
    return this.inner.tokenId(token);
  }
  renderChat(messages: Parameters<ChatTokenizer["renderChat"]>[0], options: { addGenerationPrompt: boolean }): string {
    const start = performance.now();
    const text = this.inner.renderChat(messages, options);
    this.templateMs += performance.now() - start;
    return text;
  }
}

interface HarnessResult {
  episodes: number;
  turns: number;
  wallMs: number;
  searchMs: number;
  recordMs: number;
  encodeMs: number;
  decodeMs: number;
  templateMs: number;
  cpuMs: number;
  searches: number;
  meanF1: number;
}

async function timeHarness(
  tok: ChatTokenizer,
  searcher: InProcessSearcher,
  scripts: Script[],
  n: number,
  delayMs: number,
  runDir: string,
): Promise<HarnessResult> {
  // Encoding the replies is the model's work, not the harness's: done before the clock starts.
  const encoded = scripts.slice(0, n).map((s) =>
    s.replies.map((text): Sample => {
      const tokens = replyTokens(tok, text);
      return { tokens, logprobs: tokens.map(() => -0.5), stopReason: "stop" };
    }),
  );
  rmSync(runDir, { recursive: true, force: true });
  ensureRunDir(runDir);
  const timed = new TimedSearcher(searcher);
  const timedTok = new TimedTokenizer(tok);
  let turns = 0;
  let recordMs = 0;
  let f1 = 0;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const s = scripts[i];
    const ep = await runEpisode(new InstantPolicy(timedTok, encoded[i], delayMs), timed, {
      id: s.id,
      question: s.question,
      answers: s.answers,
    });
    const r0 = performance.now();
    const record: EpisodeRecord = toRecord(ep, 0);
    appendEpisode(runDir, record);
    recordMs += performance.now() - r0;
    turns += ep.turns.length;
    f1 += record.metrics.f1;
  }
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  return {
    episodes: n,
    turns,
    wallMs,
    searchMs: timed.ms,
    recordMs,
    encodeMs: timedTok.encodeMs,
    decodeMs: timedTok.decodeMs,
    templateMs: timedTok.templateMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    searches: timed.calls,
    meanF1: f1 / n,
  };
}

/** Best and median of `times` calls, in wall ms and CPU ms. */
function timeIt(times: number, fn: (t: number) => void): { bestWall: number; medianWall: number; bestCpu: number } {
  const walls: number[] = [];
  let bestCpu = Infinity;
  for (let t = 0; t < times; t++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    fn(t);
    walls.push(performance.now() - w0);
    const c = process.cpuUsage(c0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1000);
  }
  walls.sort((a, b) => a - b);
  return { bestWall: walls[0], medianWall: walls[Math.floor(walls.length / 2)], bestCpu };
}

function syntheticRuns(n: number): AblationInput[] {
  const rng = new Xoshiro128(42);
  const score = () => {
    const u = rng.nextFloat();
    return u < 0.4 ? 0 : u < 0.75 ? 1 : rng.nextFloat();
  };
  const base: EpisodeRecord[] = [];
  const run: EpisodeRecord[] = [];
  const row = (id: string, f1: number): EpisodeRecord => ({
    id,
    question: id,
    answers: ["x"],
    prediction: "x",
    format: 2,
    metrics: { em: f1 === 1 ? 1 : 0, f1 },
    reward: f1,
    end: "answer",
    searches: ["q"],
    prompt: [],
    tokens: [],
    sampled: [],
    logprobs: null,
    prefill: 2000,
    generated: 80,
    usd: 0.0007,
  });
  for (let i = 0; i < n; i++) {
    const f = score();
    base.push(row(`q${i}`, f));
    run.push(row(`q${i}`, rng.nextFloat() < 0.1 ? 1 : f));
  }
  return [
    { name: "base", dir: "base", manifest: undefined, episodes: base },
    { name: "run", dir: "run", manifest: undefined, episodes: run },
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: "string", default: existsSync(HOTPOT) ? "real" : "demo" },
      episodes: { type: "string", default: "300" },
      "delay-ms": { type: "string" },
    },
  });
  const kind = values.corpus === "demo" ? "demo" : "real";
  const episodes = Number(values.episodes);
  mkdirSync(WORK, { recursive: true });

  const { paragraphs, scripts } = readCorpusAndScripts(kind);
  const corpusFile = join(WORK, `corpus-${kind}.jsonl`);
  writeFileSync(
    corpusFile,
    paragraphs.map((p, id) => JSON.stringify({ id, title: p.title, text: p.text })).join("\n") + "\n",
  );
  const indexDir = join(WORK, `bm25-${kind}`);
  rmSync(indexDir, { recursive: true, force: true });
  await buildIndex(corpusFile, indexDir, { workers: 0 });
  const searcher = openIndex(indexDir);
  const tok = await offlineTokenizer("qwen3");
  const n = Math.min(episodes, scripts.length);

  // Warm-up (JIT, tokenizer caches, index pages), then the measured pass.
  await timeHarness(tok, searcher, scripts, Math.min(30, n), 0, join(WORK, "warmup"));
  const h = await timeHarness(tok, searcher, scripts, n, 0, join(WORK, "run"));
  const perTurn = h.wallMs / h.turns;

  const rows: [string, string, string][] = [
    [
      `harness: ${h.episodes} episodes, ${h.turns} turns (${kind} corpus, ${paragraphs.length} paragraphs, BM25 top-3)`,
      "",
      "",
    ],
    ["  overhead per turn (tokenise, stitch, search, record)", `${perTurn.toFixed(3)} ms`, ""],
    [`  as a share of a ${SAMPLER_MS} ms sampler call`, `${((perTurn / SAMPLER_MS) * 100).toFixed(3)}%`, "≤ 0.5%"],
    ["    of which BM25 search", `${(h.searchMs / h.turns).toFixed(3)} ms`, ""],
    ["    of which recording (toRecord + append to episodes.jsonl)", `${(h.recordMs / h.turns).toFixed(3)} ms`, ""],
    ["    of which tokenizer encode (prompt, result turns)", `${(h.encodeMs / h.turns).toFixed(3)} ms`, ""],
    ["    of which chat template (once per episode)", `${(h.templateMs / h.turns).toFixed(3)} ms`, ""],
    ["    of which tokenizer decode (replies)", `${(h.decodeMs / h.turns).toFixed(3)} ms`, ""],
    [
      "    of which the rest (parsing, stitching, scoring, awaits)",
      `${((h.wallMs - h.searchMs - h.recordMs - h.encodeMs - h.decodeMs - h.templateMs) / h.turns).toFixed(3)} ms`,
      "",
    ],
    [
      "  CPU time per turn (the same pass; unaffected by other processes' load)",
      `${(h.cpuMs / h.turns).toFixed(3)} ms`,
      "",
    ],
    [
      `  CPU time as a share of a ${SAMPLER_MS} ms sampler call`,
      `${((h.cpuMs / h.turns / SAMPLER_MS) * 100).toFixed(3)}%`,
      "≤ 0.5%",
    ],
    ["  (sanity: mean F1 of the scripted answers)", h.meanF1.toFixed(3), ""],
  ];
  if (values["delay-ms"] !== undefined) {
    const delay = Number(values["delay-ms"]);
    const m = Math.min(50, n);
    const d = await timeHarness(tok, searcher, scripts, m, delay, join(WORK, "delayed"));
    const over = (d.wallMs - d.turns * delay) / d.turns;
    rows.push([
      `  cross-check: ${m} episodes with a ${delay} ms policy, (wall − turns × delay) / turns`,
      `${over.toFixed(3)} ms`,
      "(includes timer overshoot)",
    ]);
  }

  const rng = new Xoshiro128(7);
  const a = Float64Array.from({ length: 500 }, () => rng.nextFloat());
  const b = Float64Array.from({ length: 500 }, () => rng.nextFloat());
  timeIt(2, () => bootstrapMeans([a, b], { resamples: 10_000, seed: 0 }));
  const boot = timeIt(7, (t) => {
    const [da, db] = bootstrapMeans([a, b], { resamples: 10_000, seed: t });
    percentileInterval(Float64Array.from(db, (v, r) => v - da[r]));
  });
  rows.push(["bootstrap: 500 paired questions × 10,000 resamples + Δ CI", "", ""]);
  rows.push([
    "  best / median of 7, wall",
    `${boot.bestWall.toFixed(1)} / ${boot.medianWall.toFixed(1)} ms`,
    "< 100 ms",
  ]);
  rows.push(["  best of 7, CPU time", `${boot.bestCpu.toFixed(1)} ms`, "< 100 ms"]);
  const runs = syntheticRuns(500);
  const full = timeIt(5, (t) => ablate(runs, { resamples: 10_000, seed: t }));
  rows.push([
    "ablate(): 2 runs × 500 questions, 10,000 resamples (CIs, paired Δ, sign-flip, McNemar, flips)",
    `${full.bestWall.toFixed(1)} / ${full.medianWall.toFixed(1)} ms`,
    "best / median of 5",
  ]);

  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  console.log(`${"measure".padEnd(w0)}  ${"value".padStart(w1)}  target`);
  for (const [m, v, t] of rows) console.log(`${m.padEnd(w0)}  ${v.padStart(w1)}  ${t}`.trimEnd());
  console.log(
    `\nnode ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${loadavg()[0].toFixed(1)} at the end`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
