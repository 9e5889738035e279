/**
 * An eval that searches `agent-lab serve-search` (searchUrl, --search-url) writes the same
 * episodes.jsonl, byte for byte, and the same manifest search block as one that opens the index in
 * process; an unreachable URL stops it in one line before a run folder exists; the serve-search
 * command serves a workspace's index and refuses a bad index or flag in one line.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/envs/config";
import {
  openIndex,
  SearchServerError,
  serveSearch,
  type SearchServer,
  type Searcher,
} from "../../../../../src/core/base/search";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import { evalSplit } from "../../../../../src/core/steps/eval/eval-split";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";
import { runCli, startCli, waitFor } from "../../../cli/cli-process";
import { closedPort, START_HINT } from "../../../../helpers/search-server";

describe("envs/hotpotqa: searching over HTTP (searchUrl, serve-search)", function () {
  this.timeout(180_000);
  let root: string;
  let ws: string;
  let tok: ChatTokenizer;
  let served: SearchServer;
  let servedSearches = 0;

  before(async function () {
    this.timeout(180_000);
    root = mkdtempSync(join(tmpdir(), "agent-lab-search-url-"));
    ws = join(root, "ws");
    await prepareSyntheticWorkspace(ws, { seed: DEMO_SEED, train: 20, dev: 560 });
    tok = await offlineTokenizer("qwen3");
    const index = openIndex(join(ws, "data", "bm25"));
    // Counted, so the test knows the episodes' searches went over the wire.
    const counting: Searcher = {
      search: (query, k) => {
        servedSearches++;
        return index.search(query, k);
      },
      describe: () => index.describe(),
    };
    served = await serveSearch(counting, { port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await served?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const evalWith = (name: string, searchUrl: string) =>
    evalSplit({
      workspaceDir: ws,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1, searchUrl }),
      name,
      split: "val",
      closedBook: false,
      limit: 40,
      resume: false,
      temperature: 0,
      backend: "scripted",
      policy: new HeuristicPolicy(tok),
      command: ["test"],
    });

  it("writes the same episodes.jsonl and manifest search block as the in-process index", async () => {
    const local = await evalWith("in-process", "");
    assert.equal(servedSearches, 0);
    const remote = await evalWith("over-http", served.url);
    assert.equal(servedSearches, Math.round(local.summary.searches_per_q * 40), "every search went to the server");
    const episodes = (run: string) => readFileSync(join(run, "episodes.jsonl"), "utf8");
    assert.equal(episodes(remote.runDir), episodes(local.runDir));
    assert.equal(local.summary.n, 40);
    assert.ok(local.summary.searches_per_q > 1, "the episodes searched");
    const search = (run: string) => JSON.parse(readFileSync(join(run, "manifest.json"), "utf8")).search as unknown;
    assert.deepEqual(search(remote.runDir), search(local.runDir));
  });

  it("a server failing mid-run stops the eval in one line; --resume over a working server finishes it the same", async () => {
    const index = openIndex(join(ws, "data", "bm25"));
    let left = 25;
    const failing = await serveSearch(
      {
        search: (query, k) => {
          if (left-- <= 0) throw new Error("disk gone");
          return index.search(query, k);
        },
        describe: () => index.describe(),
      },
      { port: 0, host: "127.0.0.1" },
    );
    try {
      await assert.rejects(evalWith("broken", failing.url), (e: unknown) => {
        assert.ok(e instanceof SearchServerError);
        assert.equal(
          e.message,
          `the search server at ${failing.url} answered /search with HTTP 500 (the search failed: disk gone): ${START_HINT}`,
        );
        return true;
      });
    } finally {
      await failing.close();
    }
    const run = join(ws, "runs", "broken");
    const kept = readFileSync(join(run, "episodes.jsonl"), "utf8").split("\n").filter(Boolean).length;
    assert.ok(kept > 0 && kept < 40, `${kept} episodes kept`);
    const resumed = await evalSplit({
      workspaceDir: ws,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1, searchUrl: served.url }),
      name: "broken",
      split: "val",
      closedBook: false,
      limit: 40,
      resume: true,
      temperature: 0,
      backend: "scripted",
      policy: new HeuristicPolicy(tok),
      command: ["test"],
    });
    assert.equal(resumed.resumed, kept);
    assert.equal(
      readFileSync(join(run, "episodes.jsonl"), "utf8"),
      readFileSync(join(ws, "runs", "in-process", "episodes.jsonl"), "utf8"),
    );
  });

  it("an unreachable URL stops the eval in one line naming it, before a run folder is written", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    await assert.rejects(evalWith("unreachable", url), (e: unknown) => {
      assert.ok(e instanceof SearchServerError);
      assert.equal(e.message, `cannot reach the search server at ${url} (connection refused): ${START_HINT}`);
      return true;
    });
    assert.equal(existsSync(join(ws, "runs", "unreachable")), false, "no run folder");
  });

  it("agent-lab eval --search-url: the same line from the CLI, and no run folder", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await runCli([
      "eval",
      "--workspace",
      ws,
      "--name",
      "cli-unreachable",
      "--limit",
      "2",
      "--search-url",
      url,
    ]);
    assert.equal(r.code, 1, r.stdout);
    assert.equal(
      r.stderr.trim(),
      `agent-lab eval: cannot reach the search server at ${url} (connection refused): ${START_HINT}`,
    );
    assert.equal(existsSync(join(ws, "runs", "cli-unreachable")), false, "no run folder");
    const bad = await runCli(["eval", "--workspace", ws, "--name", "x", "--search-url", "localhost:1"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--search-url/);
    assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
  });

  it("agent-lab serve-search serves the workspace's index, prints its URL, and stops on SIGTERM", async () => {
    const { child, done } = await startCli(["serve-search", "--workspace", ws, "--port", "0"]);
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 60_000, "the listening line");
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
    const described = (await (await fetch(`${url}/describe`)).json()) as { describe: unknown };
    assert.deepEqual(described.describe, openIndex(join(ws, "data", "bm25")).describe());
    const r = await fetch(`${url}/search`, { method: "POST", body: JSON.stringify({ query: "born", k: 2 }) });
    assert.equal(((await r.json()) as { hits: unknown[] }).hits.length, 2);
    child.kill("SIGTERM");
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /SIGTERM: shutting down/);
  });

  it("agent-lab serve-search refuses a missing index, a bad port and a port in use in one line", async () => {
    const missing = join(root, "nowhere");
    const r = await runCli(["serve-search", "--index", missing, "--port", "0"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, /^agent-lab serve-search: .*nowhere/);
    const port = await runCli(["serve-search", "--workspace", ws, "--port", "70000"]);
    assert.equal(port.code, 1);
    assert.equal(port.stderr.trim().split("\n").length, 1, port.stderr);
    assert.match(port.stderr, /--port/);
    const taken = new URL(served.url).port;
    const busy = await runCli(["serve-search", "--workspace", ws, "--port", taken]);
    assert.equal(busy.code, 1);
    assert.equal(
      busy.stderr.trim(),
      `agent-lab serve-search: could not serve the index: port ${taken} on 127.0.0.1 is in use (another serve-search, or another program); pass --port with a free port, or --port 0 to pick one`,
    );
  });
});
