/**
 * One run shown in the trace viewer: everything the panel knows about that run and the work it
 * does for it. The panel (trace-panel.ts) keeps one webview and swaps runs: a run that is no
 * longer shown is closed, and its background passes stop and post nothing more.
 *
 * Opening is ordered for the first frame: reading starts when the run is picked, while the
 * webview may still be booting; episodes.jsonl is indexed by byte offset reading only each line's
 * light fields (the list's rows), and the episode shown reads one line. The list is posted first,
 * then the episode: decoded when the tokenizer is loaded (once per extension host, in the trace
 * worker: trace-off-thread.ts), otherwise at once with its token ids and again decoded when the
 * tokenizer is in. Only after its first frame does the run-wide work start: gold-in-results, the
 * full-text index and the drift counts, asked of the worker in slices — or read back from the
 * run's text cache (run-text-cache.ts) when episodes.jsonl has not changed since they were last
 * computed. Everything that needs the tokenizer or the environment's code runs in the worker.
 */
import { basename } from "node:path";
import type { RunManifest } from "../../core/base/runs/manifest";
import type { MetricDeclaration } from "../../core/base/runs/metrics";
import { manifestEnvironment } from "../../core/envs/manifest-environment";
import { environmentMetrics } from "../../core/envs/catalog";
import {
  EpisodeScan,
  indexEpisodes,
  readIndexedEpisode,
  readIndexedEpisodes,
  type EpisodeIndex,
  type IndexedEpisode,
} from "../../core/base/runs/episode-index";
import { EPISODES_FILE, readRunHead, type EpisodeRecord } from "../../core/base/runs/run-files";
import { toColumns, type EpisodeRow } from "../../core/views/trace/episode-list";
import { driftSettings, emptyDriftCounts, type DriftSettings, type RunDriftCounts } from "../../core/views/trace/drift";
import { countGoldInResults, type GoldInResults } from "../../core/views/trace/gold-in-results";
import { RunSearch } from "../../core/views/trace/run-search";
import { readTextCache, TEXT_CACHE_FORMAT, writeTextCache } from "../../core/views/trace/run-text-cache";
import { buildTraceView } from "../../core/views/trace/trace-view";
import { runViewSpec, type RunViewSpec } from "../../core/views/trace/run-view";
import { watchRunFiles, type FolderWatch } from "../webview/folder-watch";
import { afterSent } from "../webview/after-sent";
import type { HostBody } from "../webview/panel-base";
import { LIST_HEAD_ROWS, type PanelState, type TraceRunInfo, type WebviewMessage } from "../webview/protocol";
import { episodeRows } from "./trace-panel-rows";
import { traceDecoder } from "./trace-off-thread";
import { traceFailures } from "./trace-failures";

/**
 * Starts loading the tokenizer `name` (a run manifest's) for the traces to come, so that the first
 * trace of a window finds it loaded instead of waiting for it after the click. The extension calls
 * it once the Runs tree has listed a run with episodes; a trace opened meanwhile shares the load.
 * Never rejects: a problem is shown by the trace that needs the tokenizer.
 */
export async function warmTokenizer(name: string): Promise<void> {
  await traceDecoder.load(name);
}

/** Forgets which tokenizers this host has loaded (tests of the first open in a window, after one that warmed it). */
export function forgetLoadedTokenizers(): void {
  traceDecoder.restart();
}

/** Episodes decoded per request of the run-wide passes (an episode asked for meanwhile waits for one slice at most). */
const GOLD_SLICE = 50;
const DRIFT_SLICE = 20;

/** Where a run's messages go: the panel's webview, while this run is the one shown. */
export interface TraceSink {
  post(body: HostBody): void;
  setState(state: PanelState): void;
  /** Durations the extension side measured (ms), returned with probe answers. */
  readonly hostTimings: Record<string, number>;
}

export class TraceRun {
  /** Until wholeIndex has run, perhaps only the list's first rows (LIST_HEAD_ROWS): `complete` says. */
  private index: EpisodeIndex | undefined;
  private wholeIndexScan: Promise<void> | undefined;
  private readonly byId = new Map<string, IndexedEpisode>();
  private tokenizerLoad: Promise<void> = Promise.resolve();
  private tokenizerProblem: string | undefined;
  /** The run's manifest (the worker finds the run's environment from it); undefined when it has none. */
  private manifest: Partial<RunManifest> | undefined;
  /** The run's environment's declared metrics (the rows' primary and binary values). */
  private metrics: readonly MetricDeclaration[] | undefined;
  /** What the run's environment shows (its metric labels; searches and gold-in-results only where it searches). */
  private view: RunViewSpec = runViewSpec(undefined);
  /** The manifest's tokenizer name: what the text cache was decoded with. */
  private tokenizerName = "";
  /** The run's header; its list's rows and total come from the index (setIndex, postRun). */
  private info: Omit<TraceRunInfo, "rows" | "total"> | undefined;
  /** The list's rows, one per indexed episode, with the gold marks computed so far. */
  private rows: EpisodeRow[] = [];
  private search: RunSearch | undefined;
  private lastQuery: string | undefined;
  private goldCancelled = false;
  private watch: FolderWatch | undefined;
  /** Gold-in-results already computed, by episode id (kept across reloads of a growing run). */
  private readonly goldById = new Map<string, EpisodeRow["gold"]>();
  private goldRunning = false;
  private postedAt = 0;
  private pendingDrift: EpisodeRecord | undefined;
  private goldStarted = false;
  private failuresStarted = false;
  /** Episode ids whose drift is in the run's counts. */
  private readonly driftCounted = new Set<string>();
  private driftCounts: RunDriftCounts = emptyDriftCounts();
  /** The run's settings the drift check renders with (its manifest's thinking). */
  private driftSettings: DriftSettings = driftSettings(undefined);
  private driftRunning = false;

  private closed = false;
  private tokenizerLoaded = false;
  /** This page has drawn its first frame (or is past it): the list goes out whole from now on. */
  private listRestDue = false;
  /** The page load whose first messages this run has posted (0: none yet). */
  deliveredForPage = 0;
  /** Whether they went out before the page said "ready". */
  deliveredEarly = false;
  /** Manifest read, tokenizer load started, episodes indexed: what the first post needs. */
  readonly opening: Promise<void>;

  constructor(
    private readonly sink: TraceSink,
    readonly runDir: string,
    private episodeId: string | undefined,
  ) {
    this.opening = this.open();
    // A failure is posted when the webview is ready (load awaits it); this keeps it from being unhandled meanwhile.
    this.opening.catch(() => undefined);
  }

  get isDisposed(): boolean {
    return this.closed;
  }

  private get hostTimings(): Record<string, number> {
    return this.sink.hostTimings;
  }

  private post(body: HostBody): void {
    if (!this.closed) this.sink.post(body);
  }

  private setState(state: PanelState): void {
    if (!this.closed) this.sink.setState(state);
  }

  /** Shows another episode of the same run (the panel is reused). */
  select(episodeId: string | undefined): void {
    if (!episodeId || !this.info) {
      this.episodeId = episodeId ?? this.episodeId;
      return;
    }
    void this.showEpisode(episodeId);
  }

  /** This run is no longer shown: its passes stop, it posts nothing more. */
  close(): void {
    this.closed = true;
    this.goldCancelled = true;
    this.watch?.dispose();
  }

  /** The webview's messages about this run ("ready" is the panel's: it calls load). */
  async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "trace/select") await this.showEpisode(m.episodeId);
    else if (m.type === "trace/rendered" && m.episodeId === this.episodeId) {
      // Posting the episode → its first frame in the webview (wall clock, shared by both processes):
      // with the view model's build time, the time to interactive. The reply's own trip is not in it.
      // An episode posted before the page was up waited for it: count from the later of the two.
      if (this.postedAt) this.hostTimings.postToFirstFrameMs = m.at - Math.max(this.postedAt, m.scriptAt);
      this.hostTimings.webviewRenderMs = m.ms;
      this.afterFirstPaint();
    } else if (m.type === "trace/search") {
      this.lastQuery = m.query;
      this.postSearch();
    }
  }

  /**
   * Answers the last query from the index as it stands (searches before the gold pass ends see the
   * episodes done so far), once every episode is indexed (`indexed`: that was tried).
   */
  private postSearch(indexed = false): void {
    const query = this.lastQuery;
    if (query === undefined) return;
    if (!indexed && this.index && !this.index.complete) return void this.wholeIndex().then(() => this.postSearch(true));
    const t0 = performance.now();
    // Without a tokenizer no pass fills the index: index the light fields here (no result text).
    if (!this.search && this.tokenizerProblem && this.index) {
      this.search = new RunSearch();
      this.search.add(this.index.episodes.map((e) => e.head));
    }
    const ids = this.search ? this.search.search(query) : [];
    this.hostTimings.searchMs = performance.now() - t0;
    this.post({ type: "trace/searchResult", query, ids });
  }

  /** Everything before the first post, started at creation so it overlaps the webview's start. */
  private async open(): Promise<void> {
    // Let the panel's HTML go out to the webview first: the reads below hold the host's thread.
    await new Promise<void>((resolve) => afterSent(resolve));
    const head = readRunHead(this.runDir);
    // Training runs (GRPO episodes.jsonl) have their own manifest shape: read fields defensively.
    const manifest = head.manifest as Partial<RunManifest> | undefined;
    this.manifest = manifest;
    this.tokenizerName = typeof manifest?.tokenizer === "string" ? manifest.tokenizer : "";
    this.driftSettings = driftSettings(manifest);
    if (traceDecoder.isLoaded(this.tokenizerName)) this.tokenizerLoaded = true;
    else {
      const t0 = performance.now();
      this.tokenizerLoad = traceDecoder.load(this.tokenizerName).then((problem) => {
        this.tokenizerProblem = problem;
        this.tokenizerLoaded = true;
        this.hostTimings.tokenizerMs = performance.now() - t0;
      });
    }
    // The run's environment annotates its episodes (e.g. the extracted answer and its span): the
    // worker has its code. Its declared metrics come from the light catalog: the list's rows need them.
    const envName = manifestEnvironment(manifest).name;
    this.metrics = environmentMetrics(envName);
    this.view = runViewSpec(envName);
    // The first frame needs the list's first rows: the rest of a long run is indexed after it
    // (wholeIndex), in slices. An episode asked for by id that is not among them needs it all now.
    const t1 = performance.now();
    let index = indexEpisodes(this.runDir, environmentMetrics, LIST_HEAD_ROWS);
    const wanted = this.episodeId;
    if (wanted && !index.complete && !index.episodes.some((e) => e.head.id === wanted))
      index = indexEpisodes(this.runDir, environmentMetrics);
    this.setIndex(index);
    this.hostTimings.indexMs = performance.now() - t1;
    this.info = {
      runDir: this.runDir,
      name: basename(this.runDir),
      model: manifest?.policy?.model,
      split: manifest?.split?.name,
      gold: null,
      view: this.view,
    };
  }

  /**
   * The index of every episode, made after the first frame in slices that yield to the host
   * (a 10,000-episode run: about 100 ms of parsing). The list's rest and the run-wide passes wait
   * for it. Dropped when the run was reloaded meanwhile (that index is whole).
   */
  private wholeIndex(): Promise<void> {
    return (this.wholeIndexScan ??= (async () => {
      const partial = this.index;
      if (!partial || partial.complete) return;
      const t0 = performance.now();
      const scan = new EpisodeScan(this.runDir, environmentMetrics);
      try {
        while (scan.step()) {
          await new Promise((resolve) => setImmediate(resolve));
          if (this.closed || this.index !== partial) return;
        }
      } catch (e) {
        this.post({ type: "error", message: (e as Error).message }); // a line of the rest is bad: the first rows stay
        return;
      }
      if (this.closed || this.index !== partial) return;
      this.hostTimings.wholeIndexMs = performance.now() - t0;
      this.setIndex(scan.result);
      this.postRun();
    })());
  }

  /** The run's tokenizer is loaded in the worker: its episodes can be decoded there. */
  private get decodes(): boolean {
    return this.tokenizerLoaded && this.tokenizerProblem === undefined;
  }

  private setIndex(index: EpisodeIndex): void {
    this.index = index;
    this.byId.clear();
    for (const e of index.episodes) this.byId.set(e.head.id, e);
    // Gold already computed is kept across reloads of a growing run.
    this.rows = episodeRows(
      index.episodes.map((e) => e.head),
      this.metrics,
    ).map((r) => ({ ...r, gold: this.goldById.get(r.id) ?? r.gold }));
  }

  /** Posts the run's list and its first episode to page load `page` (see Panel.pageLoad). */
  async load(page: number): Promise<void> {
    this.deliveredForPage = page;
    await this.opening;
    if (this.closed) return;
    // A run still being written (eval in progress): its list grows as episodes land.
    this.watch ??= watchRunFiles(this.runDir, [EPISODES_FILE], () => this.reloadEpisodes());
    this.listRestDue = false; // a new page: its first frame comes first
    this.postRun();
    const first = this.episodeId ?? this.index?.episodes[0]?.head.id;
    if (first) await this.showEpisode(first);
    else {
      await this.tokenizerLoad;
      this.postTokenizerProblem();
      this.afterFirstPaint();
    }
  }

  /**
   * The run's header and its list's first rows; the rest of the list too once the page has drawn
   * its first frame (before it, the rest would be ahead of the episode on the way to the page).
   */
  private postRun(): void {
    const info = this.info!;
    const total = this.index!.complete ? this.rows.length : null;
    this.post({ type: "trace/run", run: { ...info, rows: this.rows.slice(0, LIST_HEAD_ROWS), total } });
    if (this.listRestDue) this.postListRest();
  }

  private postListRest(): void {
    const rows = this.rows;
    if (rows.length > LIST_HEAD_ROWS)
      this.post({
        type: "trace/rows",
        runDir: this.runDir,
        from: LIST_HEAD_ROWS,
        rows: toColumns(rows.slice(LIST_HEAD_ROWS)),
      });
  }

  /** The page has its first frame, or the host is about to be held (the tokenizer's load): the rest of the list goes now. */
  private releaseListRest(): void {
    if (this.listRestDue || !this.info) return;
    this.listRestDue = true;
    if (this.index?.complete) this.postListRest();
    else void this.wholeIndex(); // posts the run again with its rest when done
  }

  /** The tokenizer's problem goes in the run header, which the first post sent before the load ended. */
  private postTokenizerProblem(): void {
    if (!this.info || !this.tokenizerProblem || this.info.tokenizerProblem) return;
    this.info.tokenizerProblem = this.tokenizerProblem;
    this.postRun();
  }

  /**
   * Work that would hold up the episode's message if it ran first (the host sends messages from
   * its event loop): the drift check (re-encodes the whole chat) and the run's gold/search pass.
   */
  private afterFirstPaint(): void {
    this.releaseListRest();
    const record = this.pendingDrift;
    this.pendingDrift = undefined;
    if (record && this.decodes) void this.postDrift(record);
    if (!this.failuresStarted) {
      this.failuresStarted = true;
      setTimeout(() => void this.postFailures(), 60);
    }
    if (!this.goldStarted) {
      this.goldStarted = true;
      setTimeout(
        () =>
          void this.wholeIndex()
            .then(() => this.readCache())
            .then(() => this.computeGold()),
        50,
      );
    }
  }

  /** The episode's drift check (it re-encodes the whole chat), after the episode's first frame. */
  private async postDrift(record: EpisodeRecord): Promise<void> {
    const t0 = performance.now();
    try {
      const drift = await traceDecoder.drift(this.tokenizerName, record, this.driftSettings);
      if (this.episodeId !== record.id) return;
      this.hostTimings.driftMs = performance.now() - t0;
      this.post({ type: "trace/drift", episodeId: record.id, drift, ms: this.hostTimings.driftMs });
    } catch (e) {
      this.post({ type: "error", message: `drift check: ${(e as Error).message}` });
    }
  }

  /** The run's failure labels (its environment's rules), for the list's label filter and the header. */
  private async postFailures(): Promise<void> {
    if (this.closed) return;
    try {
      const failures = await traceFailures(this.runDir);
      if (failures) this.post({ type: "trace/failures", runDir: this.runDir, failures });
    } catch (e) {
      this.post({ type: "error", message: `failure labels: ${(e as Error).message}` });
    }
  }

  /** The run's text cache, when episodes.jsonl is as it was when the cache was made: no pass to run. */
  private async readCache(): Promise<void> {
    const index = this.index;
    if (this.isDisposed || !this.decodes || !index || this.search) return;
    const t0 = performance.now();
    let cache: ReturnType<typeof readTextCache>;
    let search: RunSearch;
    try {
      cache = readTextCache(this.runDir, this.tokenizerName);
      if (!cache || cache.episodes.size !== index.size || cache.episodes.mtime_ms !== index.mtimeMs) return;
      search = await RunSearch.restore(cache.search);
    } catch {
      return; // a cache from another MiniSearch version or otherwise unreadable: the pass rebuilds it
    }
    if (this.index !== index || this.search || this.goldRunning) return; // reloaded or searched meanwhile
    this.search = search;
    for (const [id, gold] of Object.entries(cache.gold)) this.goldById.set(id, gold);
    if (cache.drift) {
      this.driftCounts = { ...cache.drift };
      for (const e of index.episodes) this.driftCounted.add(e.head.id);
    }
    this.hostTimings.textCacheMs = performance.now() - t0;
  }

  private reloadEpisodes(): void {
    if (!this.info || this.isDisposed) return;
    try {
      this.setIndex(indexEpisodes(this.runDir, environmentMetrics));
    } catch (e) {
      // Folder removed or a line mangled while we watch: say so, keep what is shown.
      this.post({ type: "error", message: (e as Error).message });
      return;
    }
    this.info.gold = null;
    this.postRun();
    const first = this.index!.episodes[0];
    if (!this.episodeId && first) void this.showEpisode(first.head.id);
    void this.computeGold();
  }

  private async showEpisode(id: string): Promise<void> {
    if (!this.byId.has(id) && this.index && !this.index.complete) await this.wholeIndex();
    const entry = this.byId.get(id);
    if (!entry || !this.index) {
      this.post({ type: "error", message: `episode ${JSON.stringify(id)} is not in ${this.runDir}` });
      return;
    }
    this.episodeId = id;
    const t0 = performance.now();
    const record = readIndexedEpisode(this.index, entry);
    this.hostTimings.readEpisodeMs = performance.now() - t0;
    if (!this.tokenizerLoaded) {
      // The first open in a window loads the tokenizer (seconds, in the worker): draw the episode
      // from its record now (ids for the token text), the decoded one replaces it when the load ends.
      const p0 = performance.now();
      const preview = buildTraceView(
        record,
        undefined,
        { drift: false, view: this.view },
        "the run's tokenizer is still loading; the text follows",
      );
      this.hostTimings.previewMs = performance.now() - p0;
      this.post({ type: "trace/episode", episode: preview, buildMs: this.hostTimings.previewMs, preview: true });
      // Let the preview go out first, and the rest of the list after it: the page lays it out while the load runs.
      await new Promise<void>((resolve) => afterSent(resolve));
      this.releaseListRest();
    }
    await this.tokenizerLoad;
    if (this.episodeId !== id || this.isDisposed) return; // another episode was picked meanwhile
    this.postTokenizerProblem();
    const started = performance.now();
    let episode;
    try {
      episode = await traceDecoder.episode({
        tokenizer: this.decodes ? this.tokenizerName : null,
        problem: this.tokenizerProblem,
        manifest: this.manifest,
        record,
        view: this.view,
      });
    } catch (e) {
      this.post({ type: "error", message: `episode ${JSON.stringify(id)}: ${(e as Error).message}` });
      return;
    }
    if (this.episodeId !== id || this.isDisposed) return;
    this.hostTimings.buildMs = performance.now() - started;
    this.hostTimings.tokens = record.prompt.length + record.tokens.length;
    this.postedAt = Date.now();
    this.post({ type: "trace/episode", episode, buildMs: this.hostTimings.buildMs });
    this.setState({ kind: "trace", runDir: this.runDir, episodeId: id });
    this.pendingDrift = record;
  }

  /**
   * Decodes every episode's results in slices (each slice's lines read in one read, decoded in the
   * worker), for gold-in-results and for the full-text index (searches meanwhile see the episodes
   * done so far). Then saves the run's text cache and starts the drift counts.
   */
  private async computeGold(): Promise<void> {
    const info = this.info;
    const index = this.index;
    if (!this.decodes || !info || !index || this.goldRunning) return;
    this.goldRunning = true;
    const t0 = performance.now();
    let decoded = 0;
    try {
      const search = (this.search ??= new RunSearch());
      // Only episodes not seen before: a growing run costs per new episode, not per reload.
      const todo = index.episodes.filter((e) => !this.goldById.has(e.head.id));
      for (let s = 0; s < todo.length; s += GOLD_SLICE) {
        if (this.goldCancelled) return;
        const slice = readIndexedEpisodes(index, todo.slice(s, s + GOLD_SLICE));
        // Where the environment has no search results, there is no gold to look for in them.
        const { texts, gold } = await traceDecoder.results(this.tokenizerName, slice, this.view.goldInResults);
        if (this.goldCancelled) return;
        slice.forEach((e, k) => this.goldById.set(e.id, gold?.[k] ?? "not_applicable"));
        search.add(slice, texts);
      }
      decoded = todo.length;
      if (decoded) this.hostTimings.goldPassMs = performance.now() - t0;
    } catch (e) {
      this.post({ type: "error", message: `gold-in-results: ${(e as Error).message}` });
      return;
    } finally {
      this.goldRunning = false;
    }
    if (this.index !== index) return void this.computeGold(); // reloaded meanwhile
    for (const r of this.rows) r.gold = this.goldById.get(r.id) ?? r.gold;
    if (this.view.goldInResults)
      info.gold = countGoldInResults(
        this.rows.map((r) => ({ primary: r.primary, gold: r.gold === "unknown" ? "not_applicable" : r.gold })),
      );
    this.postRun();
    if (this.lastQuery !== undefined) this.postSearch(); // the index is whole now
    if (decoded) this.saveCache(false); // from the cache: nothing new to save
    void this.countDrift();
  }

  /** Saves gold, the index and (when every episode is counted) the drift counts beside the run. */
  private saveCache(withDrift: boolean): void {
    const index = this.index;
    // A partial index (a bad line past the first rows) has the file's stamp: saved, it would pass for the whole run.
    if (!index?.complete || !this.search || this.goldCancelled) return;
    const gold: Record<string, GoldInResults> = {};
    for (const e of index.episodes) {
      const g = this.goldById.get(e.head.id);
      if (!g || g === "unknown") return; // not every episode is done: nothing to save yet
      if (withDrift && !this.driftCounted.has(e.head.id)) return;
      gold[e.head.id] = g;
    }
    writeTextCache(this.runDir, {
      format: TEXT_CACHE_FORMAT,
      episodes: { size: index.size, mtime_ms: index.mtimeMs },
      tokenizer: this.tokenizerName,
      gold,
      drift: withDrift ? this.driftCounts : null,
      search: this.search.toJSON(),
    });
  }

  /**
   * The drift check over every episode, in slices that yield to the host, posting the run's
   * counts after each slice (a non-canonical split is counted per run, not flagged per episode).
   */
  private async countDrift(): Promise<void> {
    const index = this.index;
    if (!this.decodes || !index || this.driftRunning) return;
    this.driftRunning = true;
    const total = index.episodes.length;
    try {
      const todo = index.episodes.filter((e) => !this.driftCounted.has(e.head.id));
      if (todo.length === 0) this.post({ type: "trace/driftCounts", counts: { ...this.driftCounts }, total });
      for (let s = 0; s < todo.length; s += DRIFT_SLICE) {
        if (this.goldCancelled) return;
        const slice = readIndexedEpisodes(index, todo.slice(s, s + DRIFT_SLICE));
        const counts = await traceDecoder.countDrift(this.tokenizerName, slice, this.driftSettings, this.driftCounts);
        if (this.goldCancelled) return;
        this.driftCounts = counts;
        for (const e of slice) this.driftCounted.add(e.id);
        this.post({ type: "trace/driftCounts", counts: { ...this.driftCounts }, total });
      }
      if (todo.length && this.index === index) this.saveCache(true);
    } catch (e) {
      this.post({ type: "error", message: `drift counts: ${(e as Error).message}` });
    } finally {
      this.driftRunning = false;
    }
  }
}
