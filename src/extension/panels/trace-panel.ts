/**
 * The trace viewer: one run's episode list and one episode's token stream. The extension reads
 * the run through core and decodes tokens with the run's own tokenizer; the webview only renders.
 * Gold-in-results for the whole run is computed after the first paint, in slices, so a 10,000
 * episode run opens at once and the counts arrive a moment later.
 */
import * as vscode from "vscode";
import { basename } from "node:path";
import type { ChatTokenizer } from "../../core/chat/tokenizer";
import type { RunManifest } from "../../core/runs/manifest";
import { EPISODES_FILE, readRun, type EpisodeRecord, type RunFiles } from "../../core/runs/run-files";
import type { EpisodeRow } from "../../core/trace/episode-list";
import { tokenizerForRun } from "../../core/runs/run-tokenizer";
import { checkDrift, countDrift, emptyDriftCounts } from "../../core/trace/drift";
import { countGoldInResults, goldInResults, resultTexts } from "../../core/trace/gold-in-results";
import { RunSearch } from "../../core/trace/run-search";
import { buildTraceView } from "../../core/trace/trace-view";
import { watchRunFiles, type FolderWatch } from "./folder-watch";
import { Panel } from "./panel-base";
import type { TraceRunInfo, WebviewMessage } from "./protocol";
import { episodeRows } from "./trace-panel-rows";

export class TracePanel extends Panel {
  private run: RunFiles | undefined;
  private tokenizer: ChatTokenizer | undefined;
  private tokenizerProblem: string | undefined;
  private info: TraceRunInfo | undefined;
  private search: RunSearch | undefined;
  private goldCancelled = false;
  private watch: FolderWatch | undefined;
  /** Gold-in-results already computed, by episode id (kept across reloads of a growing run). */
  private readonly goldById = new Map<string, EpisodeRow["gold"]>();
  private goldRunning = false;
  private postedAt = 0;
  private pendingDrift: EpisodeRecord | undefined;
  private goldStarted = false;
  /** Episode ids whose drift is in the run's counts. */
  private readonly driftCounted = new Set<string>();
  private readonly driftCounts = emptyDriftCounts();
  private driftRunning = false;

  constructor(panel: vscode.WebviewPanel, context: vscode.ExtensionContext, readonly runDir: string, private episodeId: string | undefined) {
    super(panel, context, { kind: "trace", runDir, ...(episodeId ? { episodeId } : {}) }, `Trace · ${basename(runDir)}`);
  }

  /** Shows another episode of the same run (the panel is reused). */
  select(episodeId: string | undefined): void {
    if (!episodeId || !this.run) {
      this.episodeId = episodeId ?? this.episodeId;
      return;
    }
    this.showEpisode(episodeId);
  }

  protected override onDispose(): void {
    this.goldCancelled = true;
    this.watch?.dispose();
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") await this.load();
    else if (m.type === "trace/select") this.showEpisode(m.episodeId);
    else if (m.type === "trace/rendered" && m.episodeId === this.episodeId) {
      // Posting the episode → its first frame in the webview (wall clock, shared by both processes):
      // with the view model's build time, the time to interactive. The reply's own trip is not in it.
      if (this.postedAt) this.hostTimings.postToFirstFrameMs = m.at - this.postedAt;
      this.hostTimings.webviewRenderMs = m.ms;
      this.afterFirstPaint();
    }
    else if (m.type === "trace/search") {
      // Without a tokenizer there is no slice loop filling the index: build it here (no result text).
      this.search ??= RunSearch.build(this.run?.episodes ?? [], undefined);
      this.post({ type: "trace/searchResult", query: m.query, ids: this.search.search(m.query) });
    }
  }

  private async load(): Promise<void> {
    this.run = readRun(this.runDir);
    // Training runs (GRPO episodes.jsonl) have their own manifest shape: read fields defensively.
    const manifest = this.run.manifest as Partial<RunManifest> | undefined;
    const tok = await tokenizerForRun(typeof manifest?.tokenizer === "string" ? manifest.tokenizer : undefined);
    this.tokenizer = tok.tokenizer;
    this.tokenizerProblem = tok.problem;
    // A run still being written (eval in progress): its list grows as episodes land.
    this.watch ??= watchRunFiles(this.runDir, [EPISODES_FILE], () => this.reloadEpisodes());
    this.info = {
      runDir: this.runDir,
      name: basename(this.runDir),
      model: manifest?.policy?.model,
      split: manifest?.split?.name,
      rows: episodeRows(this.run.episodes),
      gold: null,
      ...(tok.problem ? { tokenizerProblem: tok.problem } : {}),
    };
    this.post({ type: "trace/run", run: this.info });
    const first = this.episodeId ?? this.run.episodes[0]?.id;
    if (first) this.showEpisode(first);
    else this.afterFirstPaint();
  }

  /**
   * Work that would hold up the episode's message if it ran first (the host sends messages from
   * its event loop): the drift check (re-encodes the whole chat) and the run's gold/search pass.
   */
  private afterFirstPaint(): void {
    const record = this.pendingDrift;
    this.pendingDrift = undefined;
    const tok = this.tokenizer;
    if (record && tok) {
      setImmediate(() => {
        if (this.episodeId !== record.id || this.isDisposed) return;
        const t0 = performance.now();
        const drift = checkDrift(tok, record.prompt, record.tokens, record.sampled);
        this.hostTimings.driftMs = performance.now() - t0;
        this.post({ type: "trace/drift", episodeId: record.id, drift, ms: this.hostTimings.driftMs });
      });
    }
    if (!this.goldStarted) {
      this.goldStarted = true;
      setTimeout(() => void this.computeGold(), 50);
    }
  }

  private reloadEpisodes(): void {
    if (!this.info || this.isDisposed) return;
    try {
      this.run = readRun(this.runDir);
    } catch (e) {
      // Folder removed or a line mangled while we watch: say so, keep what is shown.
      this.post({ type: "error", message: (e as Error).message });
      return;
    }
    this.info.rows = episodeRows(this.run.episodes).map((r) => ({ ...r, gold: this.goldById.get(r.id) ?? "unknown" }));
    this.info.gold = null;
    this.post({ type: "trace/run", run: this.info });
    if (!this.episodeId && this.run.episodes[0]) this.showEpisode(this.run.episodes[0].id);
    void this.computeGold();
  }

  private showEpisode(id: string): void {
    const record = this.run?.episodes.find((e) => e.id === id);
    if (!record) {
      this.post({ type: "error", message: `episode ${JSON.stringify(id)} is not in ${this.runDir}` });
      return;
    }
    this.episodeId = id;
    const started = performance.now();
    const episode = buildTraceView(record, this.tokenizer, { drift: false }, this.tokenizerProblem);
    this.hostTimings.buildMs = performance.now() - started;
    this.hostTimings.tokens = record.prompt.length + record.tokens.length;
    this.postedAt = Date.now();
    this.post({ type: "trace/episode", episode, buildMs: this.hostTimings.buildMs });
    this.setState({ kind: "trace", runDir: this.runDir, episodeId: id });
    this.pendingDrift = record;
  }

  /**
   * Decodes every episode's results in slices of 50, yielding to the host between slices, for
   * gold-in-results and for the full-text index (searches meanwhile see the episodes done so far).
   */
  private async computeGold(): Promise<void> {
    const tok = this.tokenizer;
    const info = this.info;
    const episodes = this.run?.episodes;
    if (!tok || !info || !episodes || this.goldRunning) return;
    this.goldRunning = true;
    try {
      const search = (this.search ??= new RunSearch());
      // Only episodes not seen before: a growing run costs per new episode, not per reload.
      const todo = episodes.map((e, i) => ({ e, i })).filter(({ e }) => !this.goldById.has(e.id));
      for (let s = 0; s < todo.length; s += 50) {
        if (this.goldCancelled) return;
        const slice = todo.slice(s, s + 50);
        const texts = slice.map(({ e }) => resultTexts(e, tok));
        slice.forEach(({ e, i }, k) => {
          const gold = goldInResults(e, tok, texts[k]);
          this.goldById.set(e.id, gold);
          if (info.rows[i]?.id === e.id) info.rows[i].gold = gold;
        });
        search.add(slice.map(({ e }) => e), texts);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.goldRunning = false;
    }
    if (this.run?.episodes !== episodes) return void this.computeGold(); // reloaded meanwhile
    for (const r of info.rows) r.gold = this.goldById.get(r.id) ?? r.gold;
    info.gold = countGoldInResults(info.rows.map((r) => ({ f1: r.f1, gold: r.gold === "unknown" ? "not_applicable" : r.gold })));
    this.post({ type: "trace/run", run: info });
    void this.countDrift();
  }

  /**
   * The drift check over every episode, in slices that yield to the host, posting the run's
   * counts after each slice (a non-canonical split is counted per run, not flagged per episode).
   */
  private async countDrift(): Promise<void> {
    const tok = this.tokenizer;
    const episodes = this.run?.episodes;
    if (!tok || !episodes || this.driftRunning) return;
    this.driftRunning = true;
    try {
      const todo = episodes.filter((e) => !this.driftCounted.has(e.id));
      for (let s = 0; s < todo.length; s += 20) {
        if (this.goldCancelled) return;
        for (const e of todo.slice(s, s + 20)) {
          countDrift(this.driftCounts, checkDrift(tok, e.prompt, e.tokens, e.sampled));
          this.driftCounted.add(e.id);
        }
        this.post({ type: "trace/driftCounts", counts: { ...this.driftCounts }, total: episodes.length });
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.driftRunning = false;
    }
  }
}
