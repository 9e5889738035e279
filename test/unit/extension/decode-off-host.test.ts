/**
 * The views that decode episodes besides the trace — the Compare panel's pair view and failure
 * labels (of runs small enough to be labelled without a worker of their own) and the training
 * dashboard's sample episodes — ask the window's trace worker, so the extension host never loads a
 * tokenizer (loading Qwen's holds a thread for most of a second in one piece). Real run folders:
 * real HotpotQA episodes of the harness, decoded with the offline Qwen3 tokenizer.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import {
  forgetLoadedTokenizers as forgetHostTokenizers,
  loadedVocabularies,
} from "../../../src/core/base/chat/hf-tokenizer";
import type { HostMessage } from "../../../src/extension/webview/protocol";
import { requireSharedData } from "../../helpers/shared-data";
import { until } from "../../helpers/until";
import { readHotpot, realEpisode } from "../core/views/trace/real-episodes";
import { writeTrainingRun } from "../core/views/trace/training-fixture";
import { fakeManifest } from "../core/base/runs/fakes";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";

installFakeVscode();

type Posted<T extends HostMessage["type"]> = Extract<HostMessage, { type: T }>;
const posted = <T extends HostMessage["type"]>(all: HostMessage[], type: T) =>
  all.find((m): m is Posted<T> => m.type === type);

describe("extension: Compare and the dashboard decode episodes off the host's thread", function () {
  this.timeout(60_000);
  let root: string;
  let runs: string[];
  let grpoRun: string;
  let questionId: string;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).filter(
      (r) => !["yes", "no"].includes(r.answer),
    );
    const tok = await offlineTokenizer("qwen3");
    root = mkdtempSync(join(tmpdir(), "agent-lab-decode-off-host-"));
    // Two runs of the same three questions: the baseline answers each, the other misses the first.
    runs = await Promise.all(
      ["baseline", "candidate"].map(async (name, k) => {
        const dir = join(root, name);
        mkdirSync(dir);
        const episodes = await Promise.all(
          rows
            .slice(0, 3)
            .map((r, i) =>
              realEpisode(tok, r, [
                `<search>${r.context[0][0]}</search>`,
                `<answer>${k === 1 && i === 0 ? "no idea" : r.answer}</answer>`,
              ]),
            ),
        );
        questionId = episodes[0].id;
        writeFileSync(join(dir, "manifest.json"), JSON.stringify({ ...fakeManifest(), tokenizer: tok.name }));
        writeFileSync(join(dir, "episodes.jsonl"), episodes.map((e) => JSON.stringify(e)).join("\n") + "\n");
        return dir;
      }),
    );
    grpoRun = (await writeTrainingRun(root, tok, rows)).runDir;
    // As in a new window: this thread has no tokenizer (the fixtures above loaded it).
    forgetHostTokenizers();
  });
  // root is unset when the before hook skipped (no shared data).
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("Compare: the failure labels and a flip's pair view, decoded, with no tokenizer loaded on the host", async () => {
    const { ComparePanel } = await import("../../../src/extension/compare/compare-panel");
    const f = fakePanel(true);
    const panel = new ComparePanel(f.panel as never, fakeContext as never, runs, "runs", undefined, async () => {});
    try {
      f.fromPage({ type: "ready" });
      await until("the report", () => posted(f.state.posted, "compare/report"));
      f.fromPage({ type: "compare/drawn" });
      const failures = await until("the failure labels", () => posted(f.state.posted, "compare/failures"));
      assert.ok(failures.failures.rows.length > 0, "labels compared");
      f.fromPage({ type: "compare/openPair", questionId, runs: [0, 1] });
      const { pair } = await until("the pair view", () => posted(f.state.posted, "compare/pair"));
      assert.deepEqual(
        pair.sides.map((s) => s.decodeProblem),
        [undefined, undefined],
      );
      assert.match(
        pair.turns.map((t) => t.b?.reply ?? "").join(""),
        /<answer>no idea<\/answer>/,
        "the candidate's replies, decoded",
      );
      assert.deepEqual(
        f.state.posted.filter((m) => m.type === "error"),
        [],
      );
      assert.equal(loadedVocabularies(), 0, "no tokenizer loaded on the host's thread");
      // A question neither run has: the worker's one-line error, naming the file, and no pair.
      const pairs = f.state.posted.filter((m) => m.type === "compare/pair").length;
      f.fromPage({ type: "compare/openPair", questionId: "no-such-question", runs: [0, 1] });
      const error = await until("the error", () => posted(f.state.posted, "error"));
      assert.equal(error.message, `${join(runs[0], "episodes.jsonl")}: no episode for question "no-such-question"`);
      assert.equal(f.state.posted.filter((m) => m.type === "compare/pair").length, pairs);
    } finally {
      panel.dispose();
    }
  });

  it("the training dashboard: a group's sample episodes, decoded, with no tokenizer loaded on the host", async () => {
    const { DashboardPanel } = await import("../../../src/extension/dashboard/dashboard-panel");
    const f = fakePanel(true);
    const panel = new DashboardPanel(f.panel as never, fakeContext as never, grpoRun);
    try {
      f.fromPage({ type: "ready" });
      await until("the dashboard", () => posted(f.state.posted, "dashboard/data"));
      f.fromPage({ type: "dashboard/openGroup", index: 0 });
      const { group } = await until("the group's episodes", () => posted(f.state.posted, "dashboard/group"));
      assert.equal(group.episodes.length, 3);
      assert.ok(
        group.episodes.every((e) => e.decodeProblem === undefined && e.tokens.texts.join("").includes("<answer>")),
        "each episode decoded",
      );
      assert.equal(loadedVocabularies(), 0, "no tokenizer loaded on the host's thread");
    } finally {
      panel.dispose();
    }
  });
});
