/**
 * `agent-lab show RUN` prints the drift count the trace viewer shows: both count through the one
 * per-episode function in core/views/trace/drift.ts with the settings the run's manifest records.
 * The run: a fresh GSM8K eval (the real eval step, few-shot turn) with thinking on — a count that
 * ignored the manifest's setting would call every episode drift — plus one episode whose inserted
 * text was corrupted. The viewer (its real panel host, in plain Node) and `show` (the real CLI, as a
 * child process) must both say "template drift in 1 episode", with the same numbers throughout,
 * and `show` again after the viewer saved its counts beside the run.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../src/core/base/chat/tokenizer";
import { mergeConfig } from "../../../src/core/envs/config";
import { DRIFT_FIELDS, SHOW_FIELDS } from "../../../src/core/base/runs/episode-record";
import { appendEpisode, readEpisodes, readRun } from "../../../src/core/base/runs/run-files";
import { runFile } from "../../../src/core/base/runs/run-folder";
import { GSM8K } from "../../../src/core/envs/gsm8k/environment";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";
import {
  checkEpisodeDrift,
  driftCountsLine,
  driftSettings,
  driftVerdict,
  runDriftCounts,
  type RunDriftCounts,
} from "../../../src/core/views/trace/drift";
import { runDrift } from "../../../src/core/views/trace/run-drift";
import type { HostMessage } from "../../../src/extension/webview/protocol";
import { until } from "../../helpers/until";
import { runCli } from "../cli/cli-process";
import { prepareFixtureTwin, questionOf, replyFor } from "../core/envs/gsm8k/fixture";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";
import { scriptedEval } from "../../helpers/scripted-eval";
import { environmentMetrics } from "../../../src/core/envs/catalog";

installFakeVscode();

describe("extension + cli: show prints the drift count the trace viewer shows", function () {
  this.timeout(180_000);
  let root: string;
  let runDir: string;
  let tok: ChatTokenizer;
  let expected: RunDriftCounts;
  let total: number;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-drift-counts-"));
    const ws = join(root, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
    await prepareFixtureTwin(join(ws, "data"), join(root, "raw"));
    tok = await offlineTokenizer("qwen3");
    const items = new Map(GSM8K.data.load(GSM8K.data.dir(join(ws, "data")), "val").map((i) => [i.question, i]));
    const policy = new ScriptedPolicy(tok, (ctx) => {
      const reply = replyFor(items.get(questionOf(ctx.promptText))!.answers[0], "right") as string;
      return `<think>\nAdding up.\n</think>\n\n${reply}`; // Qwen3's thinking prompt leaves the think block to the model
    });
    const r = await scriptedEval({
      workspaceDir: ws,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 4, maxTokens: 64, thinking: true }),
      env: "gsm8k",
      name: "thinking",
      split: "val",
      limit: 12,
      policy,
    });
    runDir = r.runDir;
    // One more episode: the newline the template writes after the few-shot answer's <|im_end|>, doubled.
    const [first] = readEpisodes(runDir, environmentMetrics, SHOW_FIELDS);
    const record = { ...first, id: "corrupted" };
    const end = tok.tokenId("<|im_end|>");
    const nl = record.prompt.flatMap((id, i) => (id === end ? [i] : []))[1] + 1;
    record.prompt = [...record.prompt];
    record.prompt[nl] = tok.encode("\n\n")[0];
    appendEpisode(runDir, record);
    const run = readRun(runDir, environmentMetrics, DRIFT_FIELDS);
    total = run.episodes.length;
    assert.equal(total, 13);
    expected = runDriftCounts(tok, run.manifest, run.episodes);
    assert.equal(expected.templateDrift, 1, "the corrupted episode, and only it");
    assert.equal(expected.checked, 13);
    assert.equal(run.manifest!.thinking, true);
    const ignoringManifest = runDriftCounts(tok, undefined, run.episodes);
    assert.notDeepEqual(ignoringManifest, expected, "read as thinking off, the run's episodes would all differ");
  });
  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const showLine = async () => {
    const r = await runCli(["show", runDir]);
    assert.equal(r.code, 0, r.stderr);
    const line = r.stdout.split("\n").find((l) => l.startsWith("drift check: "));
    assert.ok(line, r.stdout);
    return line;
  };

  it("the viewer's run counts and its episode's verdict, then show's line: the same numbers", async () => {
    const shownBefore = await showLine();
    assert.equal(shownBefore, `drift check: ${driftCountsLine(expected, total)}`);
    assert.match(shownBefore, /^drift check: template drift in 1 episode · /);
    assert.equal(
      runDrift(runDir, readRun(runDir, environmentMetrics).manifest, tok, tok.name).fromCache,
      false,
      "no cache yet",
    );

    const { TracePanel } = await import("../../../src/extension/trace/trace-panel");
    const f = fakePanel(true);
    const panel = new TracePanel(f.panel as never, fakeContext as never, runDir, undefined);
    try {
      const episode = await until("the first episode", () =>
        f.state.posted.find(
          (m): m is Extract<HostMessage, { type: "trace/episode" }> => m.type === "trace/episode" && !m.preview,
        ),
      );
      f.fromPage({
        type: "trace/rendered",
        episodeId: episode.episode.id,
        ms: 1,
        spans: 1,
        at: Date.now(),
        scriptAt: 0,
      });
      const drift = await until("the episode's drift", () =>
        f.state.posted.find((m): m is Extract<HostMessage, { type: "trace/drift" }> => m.type === "trace/drift"),
      );
      assert.equal(driftVerdict(drift.drift), "clean", "the thinking-on episode checked with the run's setting");
      const [record] = readEpisodes(runDir, environmentMetrics, DRIFT_FIELDS);
      assert.deepEqual(
        drift.drift,
        checkEpisodeDrift(tok, record, driftSettings(readRun(runDir, environmentMetrics).manifest)),
      );
      const counts = await until("the run's counts, every episode checked", () =>
        f.state.posted.find(
          (m): m is Extract<HostMessage, { type: "trace/driftCounts" }> =>
            m.type === "trace/driftCounts" && m.counts.checked === m.total,
        ),
      );
      assert.equal(counts.total, total);
      assert.deepEqual(counts.counts, expected);
      await until("the counts saved beside the run", () => runDrift(runDir, undefined, tok, tok.name).fromCache);
      assert.ok(runFile(runDir, "textIndex"));
    } finally {
      panel.dispose();
    }
    assert.equal(await showLine(), shownBefore, "show reads the viewer's saved counts: the same line");
  });
});
