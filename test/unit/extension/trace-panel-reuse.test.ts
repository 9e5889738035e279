/**
 * The trace panel's life with one webview for every run, on real run folders (real episodes of
 * the harness, decoded with the offline Qwen3 tokenizer): the first run's list and episode are
 * posted before the page says "ready" (an episode from its ids first while the tokenizer loads,
 * then decoded), not again on "ready"; another run is posted into the same webview after a
 * "retarget", and the run shown before posts nothing more, even with its background pass started.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { forgetLoadedTokenizers as forgetCoreTokenizers } from "../../../src/core/base/chat/hf-tokenizer";
import type { EpisodeRecord } from "../../../src/core/base/runs/run-files";
import type { HostMessage } from "../../../src/extension/webview/protocol";
import { requireSharedData } from "../../helpers/shared-data";
import { readHotpot, realEpisode } from "../core/views/trace/real-episodes";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";
import { until } from "../../helpers/until";

installFakeVscode();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: one trace panel for every run", function () {
  this.timeout(60_000);
  let root: string;
  let runA: string;
  let runB: string;
  let a: EpisodeRecord[];
  let b: EpisodeRecord[];
  let TracePanel: typeof import("../../../src/extension/trace/trace-panel").TracePanel;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).filter(
      (r) => !["yes", "no"].includes(r.answer),
    );
    ({ TracePanel } = await import("../../../src/extension/trace/trace-panel"));
    const tok = await offlineTokenizer("qwen3");
    root = mkdtempSync(join(tmpdir(), "agent-lab-trace-reuse-"));
    const write = async (name: string, from: number) => {
      const dir = join(root, name);
      mkdirSync(dir);
      const episodes = await Promise.all(
        rows
          .slice(from, from + 3)
          .map((r) => realEpisode(tok, r, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`])),
      );
      writeFileSync(
        join(dir, "manifest.json"),
        JSON.stringify({ tokenizer: tok.name, policy: { model: "scripted" }, split: { name: "val" } }),
      );
      writeFileSync(join(dir, "episodes.jsonl"), episodes.map((e) => JSON.stringify(e)).join("\n") + "\n");
      return { dir, episodes };
    };
    ({ dir: runA, episodes: a } = await write("run-a", 0));
    ({ dir: runB, episodes: b } = await write("run-b", 3));
  });
  // root is unset when the before hook skipped (no shared data).
  after(() => root && rmSync(root, { recursive: true, force: true }));

  const of = (posted: HostMessage[], type: HostMessage["type"]) => posted.filter((m) => m.type === type);

  it("posts the list and the episode before the page is ready; the episode from its ids first while the tokenizer loads", async () => {
    const f = fakePanel(true);
    const p = new TracePanel(f.panel as never, fakeContext as never, runA, undefined);
    const decoded = await until("the decoded episode", () =>
      of(f.state.posted, "trace/episode").find((m) => m.type === "trace/episode" && !m.preview),
    );
    const types = f.state.posted.map((m) => (m.type === "trace/episode" && m.preview ? "preview" : m.type));
    assert.deepEqual(
      types.slice(0, 3),
      ["trace/run", "preview", "trace/episode"],
      "list, the episode from its ids, then decoded — with no ready from the page",
    );
    const preview = of(f.state.posted, "trace/episode")[0];
    assert.ok(
      preview.type === "trace/episode" && preview.episode.decodeProblem?.includes("tokenizer is still loading"),
    );
    assert.ok(
      decoded.type === "trace/episode" && decoded.episode.id === a[0].id && decoded.episode.decodeProblem === undefined,
    );
    assert.ok(
      decoded.type === "trace/episode" && decoded.episode.tokens.texts.join("").includes("<search>"),
      "decoded token text",
    );
    const before = f.state.posted.length;
    f.fromPage({ type: "ready" });
    await sleep(50);
    assert.deepEqual(
      f.state.posted.slice(before).map((m) => m.type),
      ["state"],
      "ready: this page has the data, nothing posted again",
    );
    p.dispose();
  });

  it("shows another run in the same webview: retarget, its list and episode; the run before posts nothing more", async () => {
    const f = fakePanel(true);
    const p = new TracePanel(f.panel as never, fakeContext as never, runA, a[1].id);
    f.fromPage({ type: "ready" });
    await until("run A's episode", () =>
      of(f.state.posted, "trace/episode").find(
        (m) => m.type === "trace/episode" && !m.preview && m.episode.id === a[1].id,
      ),
    );
    // Its first frame: run A's background pass (gold, text index, drift) is scheduled, and runs after the switch.
    f.fromPage({ type: "trace/rendered", episodeId: a[1].id, ms: 1, spans: 1, at: Date.now(), scriptAt: 0 });
    const mark = f.state.posted.length;
    p.show(runB, b[2].id);
    assert.equal(p.runDir, runB);
    assert.equal(f.panel.title, "Trace · run-b");
    const episode = await until("run B's episode", () =>
      f.state.posted.slice(mark).find((m) => m.type === "trace/episode" && m.episode.id === b[2].id),
    );
    const after = f.state.posted.slice(mark);
    assert.equal(after[0].type, "retarget", "the page hears first that it shows another run");
    assert.ok(after[0].type === "retarget" && after[0].state.kind === "trace" && after[0].state.runDir === runB);
    assert.ok(
      episode.type === "trace/episode" && !episode.preview,
      "the tokenizer is loaded: decoded at once, no preview",
    );
    f.fromPage({ type: "trace/rendered", episodeId: b[2].id, ms: 1, spans: 1, at: Date.now(), scriptAt: 0 });
    // Run B's own pass ends with its gold counts: wait for it, then nothing may be about run A.
    await until("run B's gold counts", () =>
      f.state.posted.slice(mark).find((m) => m.type === "trace/run" && m.run.gold !== null),
    );
    // Its failure labels too, made in the trace worker like the rest, and nothing failed on the way.
    await until("run B's failure labels", () =>
      f.state.posted.slice(mark).find((m) => m.type === "trace/failures" && m.runDir === runB),
    );
    assert.deepEqual(
      f.state.posted.filter((m) => m.type === "error"),
      [],
    );
    await sleep(200);
    for (const m of f.state.posted.slice(mark)) {
      if (m.type === "trace/run") assert.equal(m.run.runDir, runB, "a list of run A after the retarget");
      if (m.type === "trace/episode")
        assert.ok(
          b.some((e) => e.id === m.episode.id),
          "an episode of run A after the retarget",
        );
      if (m.type === "state") assert.ok(m.state.kind === "trace" && m.state.runDir === runB);
    }
    // The same run again: only the episode changes, no retarget.
    const mark2 = f.state.posted.length;
    p.show(runB, b[0].id);
    await until("another episode of run B", () =>
      f.state.posted.slice(mark2).find((m) => m.type === "trace/episode" && m.episode.id === b[0].id),
    );
    assert.equal(of(f.state.posted.slice(mark2), "retarget").length, 0);
    assert.equal(f.state.html.length, 1, "one page for all of it");
    p.dispose();
  });

  it("a tokenizer that cannot be loaded: the run header and the episode say why, the ids are shown, nothing is decoded", async () => {
    const dir = join(root, "run-no-tokenizer");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "manifest.json"),
      JSON.stringify({ tokenizer: "./no-such-tokenizer", policy: { model: "scripted" }, split: { name: "val" } }),
    );
    writeFileSync(join(dir, "episodes.jsonl"), JSON.stringify(a[0]) + "\n");
    const f = fakePanel(true);
    const p = new TracePanel(f.panel as never, fakeContext as never, dir, undefined);
    try {
      const problem = await until("the run header naming the problem", () =>
        f.state.posted.find((m) => m.type === "trace/run" && m.run.tokenizerProblem),
      );
      assert.ok(problem.type === "trace/run");
      assert.match(
        problem.run.tokenizerProblem!,
        /^cannot load tokenizer "\.\/no-such-tokenizer": tokenizer folder not found: /,
      );
      const episode = await until("the episode after the load", () =>
        f.state.posted.find((m) => m.type === "trace/episode" && !m.preview),
      );
      assert.ok(episode.type === "trace/episode");
      assert.equal(episode.episode.decodeProblem, problem.run.tokenizerProblem);
      assert.deepEqual(
        episode.episode.tokens.texts.slice(0, 2),
        a[0].tokens.slice(0, 2).map((id) => `⟨${id}⟩`),
      );
      f.fromPage({ type: "trace/rendered", episodeId: a[0].id, ms: 1, spans: 1, at: Date.now(), scriptAt: 0 });
      await sleep(300);
      assert.deepEqual(
        f.state.posted.filter((m) => m.type === "error" || m.type === "trace/drift" || m.type === "trace/driftCounts"),
        [],
        "no drift check and no error beyond the problem shown",
      );
    } finally {
      p.dispose();
    }
  });

  it("a window's first trace loads its tokenizer off the host's thread: the host is never held while it loads", async () => {
    const { forgetLoadedTokenizers } = await import("../../../src/extension/trace/trace-run");
    // As in a new window: neither the trace viewer nor core has the tokenizer (this process's tests loaded it).
    forgetLoadedTokenizers();
    forgetCoreTokenizers();
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    const f = fakePanel(true);
    const p = new TracePanel(f.panel as never, fakeContext as never, runA, undefined);
    try {
      await until("the decoded episode", () =>
        f.state.posted.find((m) => m.type === "trace/episode" && !m.preview && m.episode.decodeProblem === undefined),
      );
    } finally {
      clearInterval(ticker);
      p.dispose();
    }
    const loadMs = p.hostTimings.tokenizerMs;
    console.log(`      load ${loadMs.toFixed(0)} ms, longest stall ${longest.toFixed(0)} ms`);
    // On the host's thread the load held it 0.6–1 s in one piece (transformers.js builds the tokenizer).
    assert.ok(loadMs > 500, `the load took ${loadMs} ms: long enough to have held the host`);
    assert.ok(longest < 250, `the host's event loop stalled ${longest.toFixed(0)} ms while the tokenizer loaded`);
  });
});
