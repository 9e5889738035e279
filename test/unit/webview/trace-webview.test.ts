/**
 * The trace viewer's real webview bundle in happy-dom, fed real episodes whose question, queries,
 * returned paragraphs, answers and run name are XSS payloads: everything renders as text, nothing
 * executes, the layout keeps its structure; sampled and inserted tokens are counted in the DOM;
 * filters, search and next/previous post the right messages. (Speed: trace-chromium.test.ts.)
 */
import assert from "node:assert/strict";
import { offlineTokenizer } from "../../../src/core/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../src/core/chat/tokenizer";
import type { EpisodeRecord } from "../../../src/core/runs/run-files";
import { countGoldInResults, goldInResults } from "../../../src/core/trace/gold-in-results";
import { buildTraceView } from "../../../src/core/trace/trace-view";
import { episodeRows } from "../../../src/extension/panels/trace-panel-rows";
import { requireSharedData } from "../../helpers/shared-data";
import { readHotpot, realEpisode, type HotpotRow } from "../core/trace/real-episodes";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";

describe("webview: trace viewer", function () {
  let tok: ChatTokenizer;
  let evil: HotpotRow;
  let episodes: EpisodeRecord[];
  let t: WebviewUnderTest;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    tok = await offlineTokenizer("qwen3");
    await webviewBundles();
    const rows = readHotpot(file);
    // A real record with payloads in the question, a paragraph title and its text.
    const base = rows[1];
    evil = {
      ...base,
      question: `${PAYLOADS[0]} ${base.question} ${PAYLOADS[2]}`,
      context: [[`Evil ${PAYLOADS[1]}`, [`Paragraph ${PAYLOADS[3]} ${base.answer}.`, PAYLOADS[4]]], ...base.context],
    };
    episodes = [
      await realEpisode(tok, evil, [`<search>Evil ${PAYLOADS[5]}</search>`, `<answer>${PAYLOADS[1]}</answer>`]),
      ...(await Promise.all(rows.slice(2, 6).map((r) => realEpisode(tok, r, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`])))),
    ];
  });

  beforeEach(async () => {
    t = await openWebview("trace");
  });
  afterEach(async () => {
    await t.close();
  });

  function postRun(name = `run ${PAYLOADS[1]}`) {
    const rows = episodeRows(episodes).map((r, i) => ({ ...r, gold: goldInResults(episodes[i], tok) }));
    t.post({
      type: "trace/run",
      run: { runDir: "/runs/x", name, model: PAYLOADS[3], split: "val", rows, gold: countGoldInResults(rows) },
    });
  }

  it("says ready on load and renders payloads as inert text", async () => {
    assert.deepEqual(t.sent[0], { v: 1, type: "ready" });
    postRun();
    const view = buildTraceView(episodes[0], tok);
    t.post({ type: "trace/episode", episode: view, buildMs: 1 });
    await t.settle();
    assertInert(t);
    const doc = t.document;
    assert.equal(doc.getElementById("question")!.textContent, evil.question);
    assert.equal(doc.getElementById("prediction")!.textContent, PAYLOADS[1]);
    assert.match(doc.getElementById("run-header")!.textContent!, /run <img src=x onerror/);
    // The paragraph payloads are in the token stream as text.
    assert.ok(doc.getElementById("stream")!.textContent!.includes(PAYLOADS[4]));
    // Layout intact: the two panes, and the episode pane holds the stream.
    assert.equal(doc.querySelectorAll(".trace-layout > *").length, 2);
    assert.ok(doc.querySelector("#episode > #stream"));
  });

  it("shows every token as a span, sampled and inserted apart, with turns and collapsible results", async () => {
    postRun("plain");
    const ep = episodes[1];
    const view = buildTraceView(ep, tok);
    t.post({ type: "trace/episode", episode: view, buildMs: 1 });
    await t.settle();
    const doc = t.document;
    assert.equal(doc.querySelectorAll("#stream .tok.s").length, ep.sampled.filter((s) => s === 1).length);
    // Inserted text comes in pieces that say how many tokens they hold.
    const inserted = Array.from(doc.querySelectorAll("#stream .tok.i")).reduce((n, el) => n + Number(el.getAttribute("data-n") ?? "1"), 0);
    assert.equal(inserted, ep.prompt.length + ep.sampled.filter((s) => s === 0).length);
    assert.equal(doc.querySelectorAll("#stream .turn-sep").length, ep.turns!.length);
    assert.equal(doc.querySelectorAll("#stream details.results").length, 1);
    assert.equal(doc.querySelectorAll("#stream details.prompt:not([open])").length, 1, "the prompt starts collapsed");
    assert.ok(doc.querySelector("#legend .tok.s") && doc.querySelector("#legend .tok.i"), "legend");
    assert.match(doc.getElementById("token-counts")!.textContent!, new RegExp(`${view.sampledCount} sampled · ${view.insertedCount} inserted · prefill ${ep.prefill} · generated ${ep.generated}`));
    assert.match(doc.getElementById("episode")!.textContent!, /no drift/);
    // Logprob shading: the scripted policy gives -0.5 → bin 1.
    assert.equal(doc.querySelectorAll("#stream .tok.s.lp1").length, view.sampledCount);
    // Hover shows id, text and logprob.
    const span = doc.querySelector("#stream .tok.s")!;
    span.dispatchEvent(new t.window.MouseEvent("mouseover", { bubbles: true }));
    const tip = doc.getElementById("tooltip") as unknown as { hidden: boolean; textContent: string };
    assert.equal(tip.hidden, false);
    const i = Number((span as unknown as { dataset: { i: string } }).dataset.i.slice(1));
    assert.equal(tip.textContent, `id ${ep.tokens[i]} · ${JSON.stringify(view.tokens.texts[i])} · sampled · logprob -0.500`);
  });

  it("lists episodes with gold-in-results counts; filters, steps and searches through messages", async () => {
    postRun("plain");
    t.post({ type: "trace/episode", episode: buildTraceView(episodes[1], tok), buildMs: 1 });
    await t.settle();
    const doc = t.document;
    assert.equal(doc.getElementById("count")!.textContent, `${episodes.length} of ${episodes.length} episodes`);
    assert.equal(doc.querySelectorAll("#episode-list .row").length, episodes.length);
    const counts = countGoldInResults(episodes.map((e) => ({ f1: e.f1, gold: goldInResults(e, tok) })));
    assert.equal(doc.getElementById("gold-found-right")!.textContent, String(counts.foundRight));
    // Unanswered-only: the evil episode answered (wrongly), so the list shrinks.
    for (const box of Array.from(doc.querySelectorAll(".outcome-filter"))) {
      const b = box as unknown as { checked: boolean; dataset: { outcome: string }; dispatchEvent(e: unknown): void };
      b.checked = b.dataset.outcome === "wrong";
      b.dispatchEvent(new t.window.Event("change"));
    }
    const wrong = episodes.filter((e) => e.end === "answer" && e.f1 === 0).length;
    assert.equal(doc.getElementById("count")!.textContent, `${wrong} of ${episodes.length} episodes`);
    for (const box of Array.from(doc.querySelectorAll(".outcome-filter"))) {
      (box as unknown as { checked: boolean }).checked = true;
      box.dispatchEvent(new t.window.Event("change"));
    }
    // Next from episode 1 selects episode 2.
    (doc.getElementById("next") as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: 1, type: "trace/select", episodeId: episodes[2].id });
    // Full-text search goes to the extension; its answer filters the list.
    const input = doc.getElementById("text-search") as unknown as { value: string; dispatchEvent(e: unknown): void };
    input.value = "Evil";
    input.dispatchEvent(new t.window.Event("input"));
    await t.settle(260);
    assert.deepEqual(t.sent.at(-1), { v: 1, type: "trace/search", query: "Evil" });
    t.post({ type: "trace/searchResult", query: "Evil", ids: [episodes[0].id] });
    assert.equal(doc.getElementById("count")!.textContent, `1 of ${episodes.length} episodes`);
  });

  it("refuses a message from another protocol version with a visible error", async () => {
    t.postRaw({ v: 99, type: "trace/run", run: {} });
    t.postRaw({ v: 1, type: "no/such" });
    await t.settle();
    const errors = t.document.getElementById("errors")!.textContent!;
    assert.match(errors, /protocol version 99/);
    assert.match(errors, /unknown message type "no\/such"/);
  });
});
