/**
 * Panel benchmark: how fast the trace viewer, Compare and the training dashboard open, on runs of
 * 200 and 10,000 episodes that the project's harness writes (bench/panels/workspace.ts: the
 * synthetic world, the scripted heuristic reader through evalSplit). Prints one table.
 *
 *   npx tsx bench/panels/run.ts              the extension host's side, in this process
 *   npx tsx bench/panels/run.ts --vscode     also the real VS Code (code-server + Chromium): from the
 *                                            command or click to the first frame with data and to
 *                                            interactive (test/integration/panel-speed.test.ts), with
 *                                            VS Code's own floor as the reference row: a webview
 *                                            made the same way whose page is one inline script;
 *                                            twice: with later VS Code's webview service-worker URL,
 *                                            then with VS Code 1.100's as shipped
 *   options: --large N (default 10000)  --repeat R (default 5; medians)  --vscode-only (skip the host table)
 *
 * Host side, per run size: what the trace panel does before its first two messages — the run's
 * head, the byte-offset index of episodes.jsonl with the list's rows, one episode's line and its
 * view model, both messages serialised — against the reference, the same panel reading every line
 * whole (readRun) as it did before the index; the tokenizer's load (once per extension host);
 * the full-text index: built from scratch (decoding every episode's results: the first open's
 * background pass), saved, and read back from the run's text cache (every later open), and query
 * times p50/p99 against MiniSearch's own (scored) search of the same index; Compare's report (ablate, the panel's resamples) and the dashboard's view model.
 * Work files go to bench/.work/panels (git-ignored).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { deepStrictEqual } from "node:assert";
import {
  ablate,
  ABLATION_EPISODE_FIELDS,
  loadAblationInputs,
  readAblationRun,
  type AblationEpisode,
} from "../../src/core/steps/ablate/ablate";
import { ABLATE_FIELDS } from "../../src/core/base/runs/episode-record";
import {
  CompareWorker,
  keepMissingCachesOffThread,
  ON_THREAD_MAX_BYTES,
  type CompareRequest,
} from "../../src/core/steps/ablate/compare-off-thread";
import { compareView } from "../../src/core/steps/ablate/compare-setup";
import { shownView } from "../../src/core/steps/ablate/compare-shown";
import { indexEpisodes, readIndexedEpisode } from "../../src/core/base/runs/episode-index";
import { readRun, readRunHead } from "../../src/core/base/runs/run-files";
import { runFile } from "../../src/core/base/runs/run-folder";
import { tokenizerForRun } from "../../src/core/base/runs/run-tokenizer";
import { readDashboard } from "../../src/core/views/trace/dashboard-view";
import { goldInResults, resultTexts } from "../../src/core/views/trace/gold-in-results";
import MiniSearch from "minisearch";
import { RUN_SEARCH_OPTIONS, RunSearch, type SearchDoc } from "../../src/core/views/trace/run-search";
import { readTextCache, TEXT_CACHE_FORMAT, writeTextCache } from "../../src/core/views/trace/run-text-cache";
import { buildTraceView } from "../../src/core/views/trace/trace-view";
import { DEFAULT_RESAMPLES } from "../../src/core/base/stats/resamples"; // what Compare computes with, as ablate does
import { episodeRows } from "../../src/extension/trace/trace-panel-rows";
import { LIST_HEAD_ROWS } from "../../src/extension/webview/protocol";
import { toColumns } from "../../src/core/views/trace/episode-list";
import { keepForCompareElsewhere, panelWorkspace, ROOT, WORK } from "./workspace";
import { environmentMetrics } from "../../src/core/envs/catalog";

const { values } = parseArgs({
  options: {
    large: { type: "string", default: "10000" },
    repeat: { type: "string", default: "5" },
    vscode: { type: "boolean", default: false },
    "vscode-only": { type: "boolean", default: false },
  },
});
const LARGE = Number(values.large);
const REPEAT = Number(values.repeat);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function timeMedian(repeat: number, f: () => unknown): number {
  const t: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  return median(t);
}

/** Medians of `f`'s wall time and its CPU time (process.cpuUsage: every thread of this process; the load does not count). */
function cpuMedian(repeat: number, f: () => unknown): { wall: number; cpu: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    f();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** The longest stretch `f` keeps this thread from running a 5 ms timer (what an extension host would feel). */
async function longestHold(f: () => unknown): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  await new Promise((r) => setTimeout(r, 20));
  last = performance.now();
  longest = 0;
  await f();
  longest = Math.max(longest, performance.now() - last);
  clearInterval(tick);
  return longest;
}

/**
 * A new panel's first Compare of these runs (a CompareWorker of its own, no view made before):
 * "table / whole report / longest hold of the host's thread", ms; the table is NaN when the report
 * came whole.
 */
async function timeFirstCompare(request: Omit<CompareRequest, "id">): Promise<string> {
  const panel = new CompareWorker(0, true, null);
  const t0 = performance.now();
  let tableMs = NaN;
  try {
    const hold = await longestHold(() => panel.view(request, () => (tableMs = performance.now() - t0)));
    return `${ms(tableMs)} / ${ms(performance.now() - t0)} / ${ms(hold)}`;
  } finally {
    panel.dispose();
  }
}

type Row = [what: string, episodes: string, ms: string, reference: string, target: string];

async function main(): Promise<void> {
  const ws = await panelWorkspace(LARGE, (l) => console.log(l));
  if (values["vscode-only"]) return vscodeTables(ws.dir);
  const rows: Row[] = [];
  const t0 = performance.now();
  const probe = readRunHead(ws.runs[200].search).manifest!.tokenizer;
  const tok = (await tokenizerForRun(probe)).tokenizer!;
  rows.push(["tokenizer load (once per extension host)", "", ms(performance.now() - t0), "", ""]);

  for (const size of [200, LARGE]) {
    const dir = ws.runs[size].search;
    // The trace panel's path to its two first messages (the run with its list's first rows, then the first episode).
    // Only the list's first rows are indexed before it; the rest after the page's first frame.
    const list = () => {
      const head = readRunHead(dir);
      const index = indexEpisodes(dir, environmentMetrics, LIST_HEAD_ROWS);
      const rows = episodeRows(index.episodes.map((e) => e.head));
      const first = JSON.stringify({
        rows,
        total: index.complete ? rows.length : null,
        manifest: head.manifest?.policy,
      });
      return { index, bytes: first.length };
    };
    const wholeIndexMs = timeMedian(REPEAT, () => indexEpisodes(dir, environmentMetrics));
    const index = indexEpisodes(dir, environmentMetrics);
    const listRows = episodeRows(index.episodes.map((e) => e.head));
    const firstEpisode = (index: ReturnType<typeof indexEpisodes>) =>
      JSON.stringify(buildTraceView(readIndexedEpisode(index, index.episodes[0]), tok, { drift: false }));
    const reference = () => {
      const run = readRun(dir, environmentMetrics);
      JSON.stringify({ rows: episodeRows(run.episodes), manifest: run.manifest?.policy });
      return JSON.stringify(buildTraceView(run.episodes[0], tok, { drift: false }));
    };
    const listMs = timeMedian(REPEAT, list);
    const { bytes: firstBytes } = list();
    // After the first frame: the rest in columns, against the whole list as row objects in one message (as before).
    let restBytes = 0;
    let wholeBytes = 0;
    const restMs = timeMedian(
      REPEAT,
      () => (restBytes = JSON.stringify(toColumns(listRows.slice(LIST_HEAD_ROWS))).length),
    );
    const wholeMs = timeMedian(REPEAT, () => (wholeBytes = JSON.stringify(listRows).length));
    const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`;
    const bothMs = timeMedian(REPEAT, () => firstEpisode(list().index));
    const refMs = timeMedian(Math.min(REPEAT, 3), reference);
    const target = size > 1000 ? "≤ 500 (VS Code)" : "≤ 300 (VS Code)";
    rows.push([
      `trace: first message ready (the run, the list's first ${LIST_HEAD_ROWS} rows: ${kb(firstBytes)})`,
      String(index.episodes.length),
      ms(listMs),
      "",
      "",
    ]);
    if (listRows.length > LIST_HEAD_ROWS)
      rows.push([
        `trace: the whole index (after the first frame, in slices)`,
        String(index.episodes.length),
        ms(wholeIndexMs),
        "",
        "",
      ]);
    if (listRows.length > LIST_HEAD_ROWS)
      rows.push([
        `trace: the rest of the list, columns (${kb(restBytes)}; after the first frame)`,
        String(index.episodes.length),
        ms(restMs),
        `${ms(wholeMs)} (every row in one message, ${kb(wholeBytes)})`,
        "",
      ]);
    rows.push([
      `trace: list + first episode ready (host part of interactive)`,
      String(index.episodes.length),
      ms(bothMs),
      `${ms(refMs)} (every line parsed)`,
      target,
    ]);

    // The full-text index: the first open's background pass, the cache it leaves, a later open.
    rmSync(runFile(dir, "textIndex"), { force: true });
    const passStart = performance.now();
    const search = new RunSearch();
    const gold: Record<string, ReturnType<typeof goldInResults>> = {};
    for (let s = 0; s < index.episodes.length; s += 50) {
      const slice = index.episodes.slice(s, s + 50).map((e) => readIndexedEpisode(index, e));
      const texts = slice.map((e) => resultTexts(e, tok));
      slice.forEach((e, k) => (gold[e.id] = goldInResults(e, tok, texts[k])));
      search.add(slice, texts);
    }
    const passMs = performance.now() - passStart;
    const w0 = performance.now();
    const wrote = writeTextCache(dir, {
      format: TEXT_CACHE_FORMAT,
      episodes: { size: index.size, mtime_ms: index.mtimeMs },
      tokenizer: probe,
      gold,
      drift: null,
      search: search.toJSON(),
    });
    const writeMs = performance.now() - w0;
    if (!wrote) throw new Error(`the text cache of ${dir} was not written`);
    const loadTimes: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      const l0 = performance.now();
      await RunSearch.restore(readTextCache(dir, probe)!.search);
      loadTimes.push(performance.now() - l0);
    }
    const loadMs = median(loadTimes);
    const loaded = new RunSearch(readTextCache(dir, probe)!.search);
    const cacheMb = readFileSync(runFile(dir, "textIndex")).length / 2 ** 20;
    rows.push([
      `search: index built (decode every result; first open, in the background)`,
      String(index.episodes.length),
      ms(passMs),
      "",
      "",
    ]);
    rows.push([
      `search: index saved beside the run (${cacheMb.toFixed(1)} MiB)`,
      String(index.episodes.length),
      ms(writeMs),
      "",
      "",
    ]);
    rows.push([
      `search: index read from the cache (later opens, in the background)`,
      String(index.episodes.length),
      ms(loadMs),
      `${ms(passMs)} (rebuilt)`,
      "",
    ]);
    // Queries as a researcher types them: a name from a question, two words, a prefix.
    const queries = index.episodes.slice(0, 60).flatMap((e, i) => {
      const words = e.head.question
        .replace(/[?,.]/g, "")
        .split(" ")
        .filter((w) => w.length > 3);
      return [words.slice(-2).join(" "), words[i % words.length] ?? "born", (words[0] ?? "found").slice(0, 4)];
    });
    const qt = queries.map((q) => {
      const s0 = performance.now();
      loaded.search(q);
      return performance.now() - s0;
    });
    // The reference: MiniSearch's own search over the same index (scores every match), as before.
    const scored = MiniSearch.loadJS<SearchDoc>(loaded.toJSON(), RUN_SEARCH_OPTIONS);
    const rt = queries.map((q) => {
      const s0 = performance.now();
      scored.search(q);
      return performance.now() - s0;
    });
    const slowest = queries[qt.indexOf(Math.max(...qt))];
    rows.push([
      `search: query p50 / p99 (${queries.length} queries; slowest ${JSON.stringify(slowest)})`,
      String(index.episodes.length),
      `${ms(median(qt))} / ${ms(pct(qt, 0.99))}`,
      `${ms(median(rt))} / ${ms(pct(rt, 0.99))} (MiniSearch scored)`,
      size > 1000 ? "≤ 100" : "",
    ]);

    const pair = [ws.runs[size].search, ws.runs[size].closedBook];
    // ablate's reader (only its fields of each line, json-fields.ts) against every line parsed whole:
    // the same values on these harness-made lines, checked here, then the CPU each takes.
    const fieldsOf = (eps: readonly AblationEpisode[]) => eps.map((e) => ABLATION_EPISODE_FIELDS.map((k) => e[k]));
    for (const d of pair)
      deepStrictEqual(
        fieldsOf(readAblationRun(d).episodes),
        fieldsOf(readRun(d, environmentMetrics, ABLATE_FIELDS).episodes),
      );
    const readAblation = cpuMedian(Math.min(REPEAT, 3), () => pair.map(readAblationRun));
    const readWhole = cpuMedian(Math.min(REPEAT, 3), () =>
      pair.map((d) => readRun(d, environmentMetrics, ABLATE_FIELDS)),
    );
    rows.push([
      "compare: both runs read for ablate (its fields of each line; checked equal to every line parsed whole), wall / CPU",
      String(index.episodes.length),
      `${ms(readAblation.wall)} / ${ms(readAblation.cpu)}`,
      `${ms(readWhole.wall)} / ${ms(readWhole.cpu)} (every line parsed whole)`,
      "",
    ]);
    const compareMs = timeMedian(Math.min(REPEAT, 3), () =>
      JSON.stringify(ablate(loadAblationInputs(pair), { resamples: DEFAULT_RESAMPLES })),
    );
    rows.push([
      `compare: report ready (ablate, ${DEFAULT_RESAMPLES} resamples)`,
      String(index.episodes.length),
      ms(compareMs),
      "",
      size > 1000 ? "" : "≤ 500 (VS Code)",
    ]);
    // A worker (0: at any size) and how long the host's thread is still held (the reply's copy), against computing it here; the panel uses the worker over ON_THREAD_MAX_BYTES.
    // The first Compare of runs without a Compare cache (compare-cache.ts; an earlier build's eval kept none): the worker saves them after its reply.
    const dropCompareCaches = () => pair.forEach((d) => rmSync(runFile(d, "compareCache"), { force: true }));
    dropCompareCaches();
    const worker = new CompareWorker(0);
    const request = { runDirs: pair, origin: "runs" as const, expect: undefined, searchDirs: [] };
    const c0 = performance.now();
    let tableMs = NaN;
    const workerHold = await longestHold(() => worker.view(request, () => (tableMs = performance.now() - c0)));
    const workerMs = performance.now() - c0;
    const h0 = performance.now();
    const hereHold = await longestHold(() => compareView(loadAblationInputs(pair), "runs", undefined, []));
    const hereMs = performance.now() - h0;
    const whole = compareView(loadAblationInputs(pair), "runs", undefined, []);
    rows.push([
      "compare: the report message's bytes (JSON), the rows the flip lists show / every question's row",
      String(index.episodes.length),
      String(JSON.stringify(shownView(whole)).length),
      `${JSON.stringify(whole).length} (every row)`,
      "",
    ]);
    const panelUses =
      pair.reduce((n, d) => n + statSync(runFile(d, "episodes")).size, 0) > ON_THREAD_MAX_BYTES ? "worker" : "host";
    rows.push([
      `compare: first Compare of the runs, from a new worker (runs read there): the table before its intervals, wall / the whole report, wall / longest hold of the host's thread (the panel uses the ${panelUses})`,
      String(index.episodes.length),
      `${ms(tableMs)} / ${ms(workerMs)} / ${ms(workerHold)}`,
      `${ms(hereMs)} / ${ms(hereHold)} (made on the host)`,
      "",
    ]);
    if (panelUses === "worker") {
      // Later Compares of these runs, made on the host from their caches: the cache files read (a new
      // panel's first), then the other baseline with the caches held (a reused panel).
      const saved = Date.now() + 60_000;
      while (pair.some((d) => !existsSync(runFile(d, "compareCache"))) && Date.now() < saved)
        await new Promise((r) => setTimeout(r, 50));
      const cached = async (by: CompareWorker, runDirs: string[]) => {
        const t0 = performance.now();
        const hold = await longestHold(() => by.view({ ...request, runDirs }));
        return `${ms(performance.now() - t0)} / ${ms(hold)}`;
      };
      // The first panel's worker is still running: it makes the other baseline from the runs it holds.
      const inWorker = await cached(worker, [pair[1], pair[0]]);
      // A new panel's (no worker started): the view made before (compare-made.ts), against making
      // it on the host from the cache files, then the other baseline held.
      const kept = await cached(new CompareWorker(0), pair);
      const here = new CompareWorker(0, true, null);
      const fromFiles = await cached(here, pair);
      const held = await cached(here, [pair[1], pair[0]]);
      rows.push([
        `compare: later Compares: the other baseline in the panel's running worker · a new panel's: the view made before / on the host from the runs' Compare caches: read from the files / other baseline, held (wall / longest hold)`,
        String(index.episodes.length),
        `${inWorker} · ${kept} / ${fromFiles} · ${held}`,
        "",
        "≤ 300 · ≤ 500 / ≤ 300 (VS Code)",
      ]);
    }
    worker.dispose();
    // The first Compare as a user meets it: each run's eval kept its Compare cache at its end (its
    // own columns' draws), so the table comes from the caches on the host and only the pair's
    // sign-flip test is drawn (in a worker for runs over ON_THREAD_MAX_BYTES).
    dropCompareCaches();
    const keptMs = keepForCompareElsewhere(pair).map((t) => t.wall);
    rows.push([
      `compare: first Compare of runs as their eval left them (each run's cache kept at its end, ${keptMs.map(ms).join(" / ")} ms there): the table, wall / the whole report, wall / longest hold of the host's thread`,
      String(index.episodes.length),
      await timeFirstCompare(request),
      "",
      "",
    ]);
    if (panelUses === "worker") {
      // Runs an earlier build evaluated: the window gives them their caches a while after it opens
      // (keep-compare-caches.ts: the runs folder in a worker), then their first Compare.
      await new Promise((r) => setTimeout(r, 100)); // the Compare above saves its draws after its reply
      dropCompareCaches();
      const k0 = performance.now();
      let kept: string[] = [];
      const keepHold = await longestHold(async () => (kept = await keepMissingCachesOffThread(dirname(pair[0]))));
      const keepMs = performance.now() - k0;
      deepStrictEqual(
        pair.map((d) => kept.includes(basename(d))),
        [true, true],
        `the keep gave both runs their caches (kept: ${kept.join(", ")})`,
      );
      rows.push([
        `compare: runs without caches given them by the window's keep (the runs folder in a worker: ${ms(keepMs)} ms, the host's thread held ${ms(keepHold)} ms), then their first Compare: the table, wall / the whole report, wall / longest hold`,
        String(index.episodes.length),
        await timeFirstCompare(request),
        "",
        "≤ 500 (VS Code)",
      ]);
    }
  }
  const dashMs = timeMedian(REPEAT, () => JSON.stringify(readDashboard(ws.training)));
  rows.push(["dashboard: view model ready (readDashboard)", "", ms(dashMs), "", "≤ 500 (VS Code)"]);

  const load = `${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" / ")}`;
  console.log(`\nPanels, extension host side (this process; ms, median of ${REPEAT}; ${load})\n`);
  printTable(["what", "episodes", "ms", "reference ms", "target ms"], rows);

  if (values.vscode) vscodeTables(ws.dir);
}

/**
 * The webviews' service-worker URL (scripts/vscode/webview-worker.mjs): later VS Code's, then VS
 * Code 1.100's as shipped, whose every new webview after the first in a window waits for a new worker.
 */
const WEBVIEW_WORKERS = [
  { flag: "fixed", title: "code-server 1.100 with later VS Code's webview service-worker URL" },
  { flag: "as-shipped", title: "code-server 1.100 as shipped: a new service worker for each new webview" },
] as const;

function vscodeTables(workspace: string): void {
  for (const webview of WEBVIEW_WORKERS) vscodeTable(workspace, webview);
}

/** A row test/integration/panel-speed.test.ts writes to AGENT_LAB_IT_PANEL_TIMINGS. */
type VscodeTiming = {
  panel: string;
  run: string;
  episodes: number;
  firstFrameMs: number;
  interactiveMs: number;
  scriptMs: number;
  wholeListMs?: number;
  controlsMs?: number;
  host: Record<string, number>;
};

/** One run of test/integration/panel-speed.test.ts (the tests `grep` picks) in a new VS Code window: what it measured, or [] when it failed. */
function runPanelSpeed(
  workspace: string,
  webview: (typeof WEBVIEW_WORKERS)[number],
  grep: string,
  env: Record<string, string> = {},
): VscodeTiming[] {
  const out = join(WORK, "vscode-timings.json");
  rmSync(out, { force: true });
  try {
    execFileSync(
      process.execPath,
      [
        join(ROOT, "scripts", "vscode", "run-integration.mjs"),
        "--suite",
        "fixture",
        "--workspace",
        workspace,
        "--grep",
        grep,
        "--webview-worker",
        webview.flag,
      ],
      {
        stdio: "inherit",
        env: { ...process.env, ...env, AGENT_LAB_IT_PANEL_TIMINGS: out },
      },
    );
  } catch (e) {
    console.error(`the VS Code run failed: ${(e as Error).message.split("\n")[0]}`);
  }
  return existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as VscodeTiming[]) : [];
}

/** Runs test/integration/panel-speed.test.ts in the real VS Code on this workspace and prints what it measured. */
function vscodeTable(workspace: string, webview: (typeof WEBVIEW_WORKERS)[number]): void {
  // The first open in VS Code is measured cold: no text or Compare cache from the host-side runs above.
  for (const d of readdirSync(join(workspace, "runs"), { withFileTypes: true }))
    if (d.isDirectory())
      for (const cache of ["textIndex", "compareCache"] as const)
        rmSync(runFile(join(workspace, "runs", d.name), cache), { force: true });
  // Then each eval run's Compare cache as its eval leaves it at its end.
  keepForCompareElsewhere(
    readdirSync(join(workspace, "runs"))
      .map((name) => join(workspace, "runs", name))
      .filter((dir) => existsSync(runFile(dir, "episodes"))),
  );
  const read = runPanelSpeed(workspace, webview, "panel speed");
  if (read.length === 0) return;
  // The floor under the window's first trace: the reference test alone in another new window, whose first open is that window's first webview.
  const firstWebview = runPanelSpeed(workspace, webview, "panel speed \\(real VS Code\\) reference", {
    AGENT_LAB_IT_REFERENCE_FIRST: "1",
  }).filter((t) => t.panel.includes("the window's first webview"));
  // The references first: what VS Code spends on a new webview, against which the new-panel rows read.
  const isReference = (t: VscodeTiming) => t.panel.startsWith("reference");
  const timings = [...read.filter(isReference), ...firstWebview, ...read.filter((t) => !isReference(t))];
  const target = (t: VscodeTiming) =>
    isReference(t)
      ? "(reference)"
      : t.panel.startsWith("trace")
        ? t.episodes > 1000
          ? "≤ 500"
          : "≤ 300"
        : t.episodes > 1000 && t.panel.includes("reused")
          ? "≤ 300"
          : "≤ 500";
  const load = `${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" / ")}`;
  console.log(`\nPanels in the real VS Code (${webview.title}; Chromium; ms from the command or click; ${load})\n`);
  printTable(
    [
      "panel",
      "run",
      "episodes",
      "first frame",
      "interactive",
      "whole list",
      "controls defined",
      "webview script start",
      "interactive − script start",
      "host: index / tokenizer / episode view",
      "target (interactive)",
    ],
    // A reused panel's script started before the click: no webview start in its time.
    timings.map((t) => [
      t.panel,
      t.run,
      String(t.episodes || ""),
      String(t.firstFrameMs),
      String(t.interactiveMs),
      t.wholeListMs === undefined ? "" : String(t.wholeListMs),
      t.controlsMs === undefined ? "" : t.controlsMs < 0 ? "before (reused)" : String(t.controlsMs),
      t.scriptMs < 0 ? "before (reused)" : String(t.scriptMs),
      t.scriptMs < 0 ? String(t.interactiveMs) : String(t.interactiveMs - t.scriptMs),
      t.panel.startsWith("trace")
        ? [t.host.indexMs, t.host.tokenizerMs, t.host.buildMs].map((x) => (x === undefined ? "–" : ms(x))).join(" / ")
        : "",
      target(t),
    ]),
  );
}

function printTable(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 || i === 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  console.log(line(head));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
