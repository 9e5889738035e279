/**
 * The trace panel shows each run's own environment: a GSM8K eval run made by the real eval (its
 * fixture twin, scripted replies graded by the environment) and a HotpotQA run of real harness
 * episodes, each opened in the real TracePanel (stand-in vscode), and what it posts fed to the real
 * trace webview bundle. GSM8K: no searches filter, no gold-in-results (none computed, none shown),
 * its metric named "accuracy", the extracted answer, reference and boxed span; HotpotQA: searches,
 * gold-in-results and F1/EM as before.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../src/core/base/chat/tokenizer";
import { mergeConfig } from "../../../src/core/envs/config";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";
import type { HostMessage, TraceRunInfo } from "../../../src/extension/webview/protocol";
import type { TraceEpisodeView } from "../../../src/core/views/trace/trace-view";
import { prepareFixtureTwin } from "../core/envs/gsm8k/fixture";
import { readHotpot, realEpisode } from "../core/views/trace/real-episodes";
import { requireSharedData } from "../../helpers/shared-data";
import { until } from "../../helpers/until";
import { openWebview, webviewBundles } from "../webview/webview-dom";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";
import { scriptedEval } from "../../helpers/scripted-eval";

installFakeVscode();

type Posted = HostMessage & { type: string };

/** Opens `runDir` in a TracePanel and collects its messages until the run-wide passes are done. */
async function openTrace(runDir: string): Promise<{ run: TraceRunInfo; episode: TraceEpisodeView; posted: Posted[] }> {
  const { TracePanel } = await import("../../../src/extension/trace/trace-panel");
  const f = fakePanel(true);
  const p = new TracePanel(f.panel as never, fakeContext as never, runDir, undefined);
  try {
    f.fromPage({ type: "ready", page: 1 });
    const posted = f.state.posted as Posted[];
    const episode = await until("the decoded episode", () => {
      const m = posted.find((x) => x.type === "trace/episode" && !("preview" in x && x.preview));
      return m && "episode" in m ? m.episode : undefined;
    });
    f.fromPage({ type: "trace/rendered", episodeId: episode.id, ms: 1, at: Date.now(), scriptAt: Date.now() });
    // The drift counts come after the gold pass: by then the run is posted as it stays.
    await until("the run-wide passes", () => posted.find((x) => x.type === "trace/driftCounts"));
    const runs = posted.filter((x): x is Extract<Posted, { type: "trace/run" }> => x.type === "trace/run");
    return { run: runs[runs.length - 1].run, episode, posted };
  } finally {
    p.dispose();
  }
}

describe("extension: the trace panel shows its run's environment's controls and metric names", function () {
  this.timeout(120_000);
  let root: string;
  let tok: ChatTokenizer;
  let gsm8kRun: string;
  let hotpotRun: string;

  before(async function () {
    const shared = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    root = mkdtempSync(join(tmpdir(), "agent-lab-trace-envs-"));
    tok = await offlineTokenizer("qwen3");
    await webviewBundles();
    await prepareFixtureTwin(join(root, "data"), join(root, "raw"));
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 96 });
    let n = 0;
    const policy = new ScriptedPolicy(tok, (ctx) => {
      const m = /Rosa has (\d+) marbles and wins (\d+) more/.exec(ctx.promptText.split("<|im_start|>user").at(-1)!)!;
      const sum = Number(m[1]) + Number(m[2]);
      return n++ % 2 === 0 ? `Adding: \\boxed{${sum}}` : `Maybe \\boxed{${sum + 1}}`;
    });
    await scriptedEval({
      workspaceDir: root,
      config,
      name: "gsm8k-val",
      split: "val",
      limit: 3,
      policy,
    });
    gsm8kRun = join(root, "runs", "gsm8k-val");
    // HotpotQA as the harness records it (a manifest without an environment field is HotpotQA's).
    const rows = readHotpot(shared).filter((r) => !["yes", "no"].includes(r.answer));
    const eps = await Promise.all(
      rows
        .slice(0, 3)
        .map((r) => realEpisode(tok, r, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`])),
    );
    hotpotRun = join(root, "runs", "hotpot-val");
    mkdirSync(hotpotRun, { recursive: true });
    writeFileSync(
      join(hotpotRun, "manifest.json"),
      JSON.stringify({ tokenizer: tok.name, policy: { model: "scripted" }, split: { name: "val" } }),
    );
    writeFileSync(join(hotpotRun, "episodes.jsonl"), eps.map((e) => JSON.stringify(e)).join("\n") + "\n");
  });
  after(async () => {
    (await import("../../../src/extension/trace/trace-run")).forgetLoadedTokenizers();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** The panel's messages replayed into the real webview: what the user sees. */
  async function showInWebview(posted: Posted[]) {
    const t = await openWebview("trace");
    for (const m of posted) {
      const { v: _v, ...body } = m as Posted & { v: number };
      t.post(body as Parameters<typeof t.post>[0]);
    }
    await t.settle();
    const d = t.document;
    const hidden = (id: string) => (d.getElementById(id) as unknown as { hidden: boolean }).hidden;
    return { t, d, hidden };
  }

  it("GSM8K: the run and episode carry its view; no gold-in-results is computed or posted", async () => {
    const { run, episode } = await openTrace(gsm8kRun);
    assert.equal(run.view?.environment, "gsm8k");
    assert.equal(run.view?.searches, false);
    assert.equal(run.view?.goldInResults, false);
    assert.equal(run.view?.primary.label, "accuracy");
    assert.equal(run.gold, null, "no 'gold answer in search results' counts for GSM8K");
    assert.ok(
      run.rows.every((r) => r.gold !== "found" && r.gold !== "missing"),
      "no row is marked found/missing",
    );
    assert.deepEqual(episode.view, run.view);
    assert.equal(episode.gold, "not_applicable");
    assert.deepEqual(
      episode.annotations?.notes.map((n) => n.label),
      ["extracted answer", "reference", "correct"],
    );
    assert.equal(episode.marks?.[0]?.label, "boxed answer");
  });

  it("GSM8K in the webview: no searches or gold controls, the metric named accuracy, the boxed span marked", async () => {
    const { posted } = await openTrace(gsm8kRun);
    const { t, d, hidden } = await showInWebview(posted);
    try {
      assert.equal(hidden("searches-filter"), true, "no searches filter");
      assert.equal(hidden("gold-filter-label"), true, "no gold filter");
      assert.equal(hidden("gold-counts"), true, "no 'Gold answer in search results' table");
      assert.equal(hidden("legend-searches"), true);
      assert.equal(hidden("legend-gold"), true);
      assert.equal(d.getElementById("primary-filter-name")!.textContent, "accuracy ");
      assert.ok(d.querySelectorAll("#episode-list .row").length > 0, "the list has rows");
      assert.equal(d.querySelectorAll("#episode-list .row .searches, #episode-list .row .gold").length, 0);
      const badges = Array.from(d.querySelectorAll(".badges .badge")).map((b) => b.textContent ?? "");
      assert.ok(
        badges.some((b) => /^accuracy [01]$/.test(b)),
        badges.join(" | "),
      );
      assert.ok(!badges.some((b) => /searches|gold|^F1 |^EM /.test(b)), badges.join(" | "));
      const notes = d.getElementById("annotations")!.textContent!;
      assert.match(notes, /extracted answer/);
      assert.match(notes, /reference/);
      assert.ok(d.querySelector("#stream .tok.annot"), "the boxed span is marked");
      assert.doesNotMatch(d.getElementById("gold-counts")!.textContent ?? "", /search results/);
    } finally {
      await t.close();
    }
  });

  it("HotpotQA: searches, gold-in-results and F1/EM as before", async () => {
    const { run, episode, posted } = await openTrace(hotpotRun);
    assert.equal(run.view?.environment, "hotpotqa");
    assert.equal(run.view?.searches, true);
    assert.equal(run.view?.goldInResults, true);
    assert.ok(run.gold, "gold-in-results counted");
    assert.equal(run.gold!.episodes, 3);
    assert.notEqual(episode.gold, "not_applicable");
    const { t, d, hidden } = await showInWebview(posted);
    try {
      assert.equal(hidden("searches-filter"), false);
      assert.equal(hidden("gold-filter-label"), false);
      assert.equal(hidden("gold-counts"), false);
      assert.equal(d.getElementById("primary-filter-name")!.textContent, "F1 ");
      assert.ok(d.querySelectorAll("#episode-list .row .searches").length > 0);
      assert.match(d.getElementById("gold-counts")!.textContent!, /Gold answer in search results/);
      const badges = Array.from(d.querySelectorAll(".badges .badge")).map((b) => b.textContent ?? "");
      assert.ok(badges.some((b) => /^F1 /.test(b)) && badges.some((b) => /searches$/.test(b)), badges.join(" | "));
    } finally {
      await t.close();
    }
  });
});
