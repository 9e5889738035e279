/**
 * The trace panel on a 10,000-episode run (real episodes of the harness, each line written 3,334
 * times under its own id): the first message carries the list's first rows only (only they are
 * indexed before it) and stays small, the rest follows in one columnar message after the page's
 * first frame, and head and rest
 * together are every row of episodes.jsonl in order. And the tokenizer warmed ahead of the first
 * trace: the Runs tree asks for it once when it first lists a run with episodes, the warm-up also
 * decodes the default prompt's chat (its code then runs warm, its ids are cached), and a trace
 * opened after it decodes its first episode at once (no preview while a tokenizer loads).
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { fromColumns } from "../../../src/core/views/trace/episode-list";
import { runFile } from "../../../src/core/base/runs/run-folder";
import { LIST_HEAD_ROWS, type HostMessage } from "../../../src/extension/webview/protocol";
import { requireSharedData } from "../../helpers/shared-data";
import { readHotpot, realEpisode } from "../core/views/trace/real-episodes";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode, recorded } from "./fake-vscode";
import { until } from "../../helpers/until";

installFakeVscode();

const EPISODES = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: the trace panel on a 10,000-episode run, and its tokenizer warmed ahead", function () {
  this.timeout(120_000);
  let root: string;
  let runDir: string;
  let ids: string[];
  let tokenizerName: string;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).filter(
      (r) => !["yes", "no"].includes(r.answer),
    );
    const tok = await offlineTokenizer("qwen3");
    tokenizerName = tok.name;
    const real = await Promise.all(
      rows
        .slice(0, 3)
        .map((r) => realEpisode(tok, r, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`])),
    );
    root = mkdtempSync(join(tmpdir(), "agent-lab-trace-long-"));
    runDir = join(root, "runs", "long");
    mkdirSync(runDir, { recursive: true });
    ids = Array.from({ length: EPISODES }, (_, i) => `${real[i % 3].id}-${i}`);
    writeFileSync(
      join(runDir, "manifest.json"),
      JSON.stringify({ tokenizer: tok.name, policy: { model: "scripted" }, split: { name: "train" } }),
    );
    writeFileSync(
      join(runDir, "episodes.jsonl"),
      ids.map((id, i) => JSON.stringify({ ...real[i % 3], id })).join("\n") + "\n",
    );
  });
  after(async () => {
    // Other tests time a window's first trace, tokenizer not loaded.
    (await import("../../../src/extension/trace/trace-run")).forgetLoadedTokenizers();
    recorded.workspaceFolder = undefined;
    recorded.settings = {};
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("the Runs tree asks once for the tokenizer of the first run with episodes it lists", async () => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { LabWorkspace } =
      require("../../../src/extension/workspace/lab-workspace") as typeof import("../../../src/extension/workspace/lab-workspace");
    const { RunsProvider } =
      require("../../../src/extension/runs/runs-provider") as typeof import("../../../src/extension/runs/runs-provider");
    /* eslint-enable @typescript-eslint/no-require-imports */
    recorded.workspaceFolder = root;
    recorded.settings = { runsDir: "runs" };
    const asked: string[] = [];
    const runs = new RunsProvider(
      new LabWorkspace(),
      () => new Set(),
      undefined,
      (t) => asked.push(t),
    );
    assert.deepEqual(asked, [], "not before it lists");
    assert.equal(runs.getChildren().length, 1);
    runs.getChildren();
    assert.deepEqual(asked, [tokenizerName]);
    runs.dispose();
  });

  it("warming also renders, encodes and decodes a chat of the default system prompt, whose ids start the recipe's episodes", async () => {
    // What the trace worker does when asked to load, run here on this thread to watch the tokenizer's calls.
    const { traceDecoding } = await import("../../../src/extension/trace/trace-decoding");
    const { loadSystemPrompt } = await import("../../../src/core/harness/prompts");
    const { decodePerToken } = await import("../../../src/core/views/trace/token-text");
    const tok = await offlineTokenizer("qwen3"); // the instance the warm-up gets (core keeps one per tokenizer)
    const { encode, decode } = tok;
    const encoded: string[] = [];
    let decodes = 0;
    tok.encode = (text) => (encoded.push(text), encode.call(tok, text));
    tok.decode = (ids, options) => (decodes++, decode.call(tok, ids, options));
    try {
      assert.equal(await traceDecoding()({ kind: "load", tokenizer: tokenizerName }), undefined, "loaded");
      const prompt = loadSystemPrompt().text;
      const chat = encoded.find((t) => t.includes(prompt));
      assert.ok(chat, "the default prompt's chat was encoded");
      const after = decodes;
      decodePerToken(tok, encode.call(tok, chat));
      assert.equal(decodes, after, "its ids were decoded by the warm-up");
    } finally {
      tok.encode = encode;
      tok.decode = decode;
    }
  });

  it("first message: the list's first rows, small; the rest after the first frame, in one columnar message; together every row", async () => {
    const { warmTokenizer } = await import("../../../src/extension/trace/trace-run");
    const { TracePanel } = await import("../../../src/extension/trace/trace-panel");
    await warmTokenizer(tokenizerName);
    const f = fakePanel(true);
    const p = new TracePanel(f.panel as never, fakeContext as never, runDir, undefined);
    try {
      await firstMessages(f);
    } finally {
      p.dispose(); // its folder watch would keep the process alive
    }
  });

  it("an episode past the first rows: opened at it, picked or searched for before the rest is indexed", async () => {
    const { TracePanel } = await import("../../../src/extension/trace/trace-panel");
    const episodes = (f: ReturnType<typeof fakePanel>) =>
      f.state.posted.filter(
        (m): m is Extract<HostMessage, { type: "trace/episode" }> => m.type === "trace/episode" && !m.preview,
      );
    const at = fakePanel(true);
    const opened = new TracePanel(at.panel as never, fakeContext as never, runDir, ids[7000]);
    const picked = fakePanel(true);
    const listed = new TracePanel(picked.panel as never, fakeContext as never, runDir, undefined);
    try {
      await until("the episode it was opened at", () => episodes(at)[0]);
      assert.equal(episodes(at)[0].episode.id, ids[7000]);
      const run = at.state.posted.find(
        (m): m is Extract<HostMessage, { type: "trace/run" }> => m.type === "trace/run",
      )!;
      assert.equal(run.run.total, EPISODES, "indexed whole at once to find it");
      await until("the first episode", () => episodes(picked)[0]);
      picked.fromPage({ type: "trace/select", episodeId: ids[9999] });
      picked.fromPage({ type: "trace/search", query: ids[9998] });
      await until("the picked episode", () => episodes(picked).find((m) => m.episode.id === ids[9999]));
      await until("the search's answer", () =>
        picked.state.posted.find((m) => m.type === "trace/searchResult" && m.query === ids[9998]),
      );
      assert.equal(picked.state.posted.filter((m) => m.type === "error").length, 0);
    } finally {
      opened.dispose();
      listed.dispose();
    }
  });

  it("a bad line past the first rows: the first rows stay, the error names file:line, a search still gets its answer", async () => {
    const { TracePanel } = await import("../../../src/extension/trace/trace-panel");
    const badDir = join(root, "runs", "bad-tail");
    mkdirSync(badDir, { recursive: true });
    const lines = readFileSync(join(runDir, "episodes.jsonl"), "utf8").split("\n").slice(0, 300);
    lines[250] = '{"id":"broken", "question":';
    writeFileSync(join(badDir, "manifest.json"), readFileSync(join(runDir, "manifest.json")));
    writeFileSync(join(badDir, "episodes.jsonl"), lines.join("\n") + "\n");
    const f = fakePanel(true);
    const p = new TracePanel(f.panel as never, fakeContext as never, badDir, undefined);
    try {
      await until("the first episode", () => f.state.posted.find((m) => m.type === "trace/episode" && !m.preview));
      f.fromPage({ type: "trace/rendered", episodeId: ids[0], ms: 1, spans: 1, at: Date.now(), scriptAt: 0 });
      f.fromPage({ type: "trace/search", query: "anything" });
      const error = await until("the error", () =>
        f.state.posted.find((m): m is Extract<HostMessage, { type: "error" }> => m.type === "error"),
      );
      assert.match(error.message, /bad-tail[\\/]episodes\.jsonl:251: /);
      await until("the search's answer", () => f.state.posted.find((m) => m.type === "trace/searchResult"));
      assert.equal(f.state.posted.filter((m) => m.type === "trace/rows").length, 0, "no rest to list");
      await until("the pass over the first rows", () =>
        f.state.posted.find((m) => m.type === "trace/run" && m.run.gold !== null),
      );
      await sleep(200);
      assert.equal(existsSync(runFile(badDir, "textIndex")), false, "no text cache that would pass for the whole run");
    } finally {
      p.dispose();
    }
  });

  async function firstMessages(f: ReturnType<typeof fakePanel>): Promise<void> {
    const episode = await until("the first episode", () => f.state.posted.find((m) => m.type === "trace/episode"));
    assert.ok(
      episode.type === "trace/episode" && !episode.preview && episode.episode.decodeProblem === undefined,
      "the warmed tokenizer decodes the first episode at once",
    );
    const runs = () =>
      f.state.posted.filter((m): m is Extract<HostMessage, { type: "trace/run" }> => m.type === "trace/run");
    const head = runs()[0];
    assert.equal(head.run.total, null, "only the first rows are indexed before the first frame");
    assert.equal(head.run.rows.length, LIST_HEAD_ROWS);
    assert.ok(head.run.rows.every((r) => r.gold === "unknown"));
    const bytes = JSON.stringify(head).length;
    assert.ok(bytes < 64_000, `the first message is ${bytes} bytes`);
    await sleep(100);
    assert.equal(
      f.state.posted.filter((m) => m.type === "trace/rows").length,
      0,
      "the rest waits for the page's first frame",
    );
    assert.equal(runs().length, 1, "so does the rest of the index");
    f.fromPage({ type: "trace/rendered", episodeId: ids[0], ms: 1, spans: 1, at: Date.now(), scriptAt: 0 });
    const rest = await until("the rest of the list", () =>
      f.state.posted.find((m): m is Extract<HostMessage, { type: "trace/rows" }> => m.type === "trace/rows"),
    );
    const counted = runs()[1];
    assert.equal(counted.run.total, EPISODES, "the run again with its total, before its rest");
    assert.ok(f.state.posted.indexOf(counted) < f.state.posted.indexOf(rest));
    assert.equal(rest.runDir, runDir);
    assert.equal(rest.from, LIST_HEAD_ROWS);
    const all = [...head.run.rows, ...fromColumns(rest.rows)];
    assert.deepEqual(
      all.map((r) => r.id),
      ids,
      "every row of episodes.jsonl, in order",
    );
    assert.ok(
      JSON.stringify(rest.rows).length < JSON.stringify(all.slice(LIST_HEAD_ROWS)).length * 0.8,
      "columns are smaller than row objects",
    );
  }
});
