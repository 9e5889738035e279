/**
 * GSM8K episodes in the trace viewer: a real eval run (the GSM8K environment on its fixture twin,
 * scripted replies written as models write them, payloads in the reply text) read back and built
 * into the episode view with the run's environment: the grader's extracted answer is a note, the
 * graded box's content is marked on exactly its tokens, and the real webview bundle shows both as
 * inert text. HotpotQA views carry neither.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../src/core/base/chat/tokenizer";
import { mergeConfig } from "../../../src/core/envs/config";
import { GSM8K } from "../../../src/core/envs/gsm8k/environment";
import { HOTPOTQA } from "../../../src/core/envs/hotpotqa";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";
import { readRun, type EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { buildTraceView } from "../../../src/core/views/trace/trace-view";
import { prepareFixtureTwin } from "../core/envs/gsm8k/fixture";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";
import { scriptedEval } from "../../helpers/scripted-eval";
import { environmentMetrics } from "../../../src/core/envs/catalog";

/** The fixture twin's answer, read from its question ("Rosa has A marbles and wins B more"). */
function answerOf(promptText: string): number {
  const m = /Rosa has (\d+) marbles and wins (\d+) more/.exec(promptText.split("<|im_start|>user").at(-1)!)!;
  return Number(m[1]) + Number(m[2]);
}

describe("webview: trace viewer on GSM8K episodes", function () {
  this.timeout(120_000);
  let root: string;
  let tok: ChatTokenizer;
  let episodes: EpisodeRecord[];
  let t: WebviewUnderTest;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-trace-gsm8k-"));
    tok = await offlineTokenizer("qwen3");
    await webviewBundles();
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 96 });
    await prepareFixtureTwin(join(root, "data"), join(root, "raw"));
    // Right with a thousands comma and a payload before the box; a second, earlier box (the last is graded); no box.
    let n = 0;
    const policy = new ScriptedPolicy(tok, (ctx) => {
      const answer = answerOf(ctx.promptText);
      const k = n++ % 3;
      if (k === 0)
        return `${PAYLOADS[1]} Adding up gives ${answer.toLocaleString("en-US")}. \\boxed{${answer.toLocaleString("en-US")}}`;
      if (k === 1) return `First \\boxed{${answer - 1}}? No: the total is \\boxed{${answer}} marbles.`;
      return `She has ${answer} marbles ${PAYLOADS[0]}`;
    });
    await scriptedEval({
      workspaceDir: root,
      config,
      name: "gsm8k-val",
      split: "val",
      limit: 3,
      policy,
    });
    episodes = readRun(join(root, "runs", "gsm8k-val"), environmentMetrics).episodes;
    assert.equal(episodes.length, 3);
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));
  beforeEach(async () => (t = await openWebview("trace")));
  afterEach(async () => t.close());

  it("the view model marks exactly the graded box's tokens and notes the extracted answer", () => {
    for (const record of episodes) {
      const view = buildTraceView(record, tok, { drift: false, environment: GSM8K });
      const extracted = (record as unknown as { extracted: string | null }).extracted;
      assert.equal(view.annotations!.notes[0].value, extracted ?? "(no \\boxed{} answer)");
      if (extracted === null) {
        assert.deepEqual(view.marks ?? [], [], "no box, no mark");
        continue;
      }
      assert.equal(view.marks!.length, 1);
      const [a, b] = view.marks![0].range.map((i) => i - view.prompt.ids.length);
      const text = view.tokens.texts.slice(a, b).join("");
      // The marked tokens hold the box content (a token may carry a brace or a space beside it).
      assert.ok(text.includes(extracted), `${JSON.stringify(text)} holds ${extracted}`);
      assert.ok(text.length <= extracted.length + 2, `${JSON.stringify(text)} is no more than the box content`);
      assert.ok(view.tokens.texts.join("").includes(`\\boxed{${extracted}}`));
      assert.ok(view.tokens.texts.slice(b).join("").indexOf("\\boxed{") < 0, "the last box is the one marked");
    }
    const hot = buildTraceView(episodes[0], tok, { drift: false, environment: HOTPOTQA });
    assert.equal(hot.annotations, undefined, "HotpotQA has no annotations");
    assert.equal(hot.marks, undefined);
  });

  it("the webview shows the extracted answer and highlights the box, as inert text", async () => {
    const record = episodes[0];
    const extracted = (record as unknown as { extracted: string }).extracted;
    t.post({
      type: "trace/run",
      run: { runDir: "/runs/gsm8k-val", name: "gsm8k-val", model: "m", split: "val", rows: [], total: 0, gold: null },
    });
    t.post({
      type: "trace/episode",
      episode: buildTraceView(record, tok, { drift: false, environment: GSM8K }),
      buildMs: 1,
    });
    await t.settle();
    assertInert(t);
    const notes = t.document.getElementById("annotations")!.textContent!;
    assert.ok(notes.includes(`extracted answer ${extracted}`), notes);
    assert.match(notes, /correct yes/);
    const marked = Array.from(t.document.querySelectorAll("#stream .tok.annot"))
      .map((e) => e.textContent)
      .join("");
    assert.ok(marked.includes(extracted) && marked.length <= extracted.length + 2, marked);
    assert.ok(t.document.querySelector("#legend .tok.annot"), "the mark has a legend entry");
    const badges = Array.from(t.document.querySelectorAll(".badges .badge")).map((b) => b.textContent);
    assert.ok(badges.includes("accuracy 1"), badges.join(" | "));
    assert.ok(
      !badges.some((b) => /^(EM|F1) |searches|gold/.test(b ?? "")),
      `no HotpotQA badges: ${badges.join(" | ")}`,
    );

    const unboxed = episodes[2];
    t.post({
      type: "trace/episode",
      episode: buildTraceView(unboxed, tok, { drift: false, environment: GSM8K }),
      buildMs: 1,
    });
    await t.settle();
    assertInert(t);
    assert.match(t.document.getElementById("annotations")!.textContent!, /extracted answer \(no \\boxed\{\} answer\)/);
    assert.equal(t.document.querySelectorAll("#stream .tok.annot").length, 0);
  });
});
