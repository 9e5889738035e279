/**
 * The trace viewer's real webview bundle in happy-dom, fed real episodes whose question, queries,
 * returned paragraphs, answers and run name are XSS payloads: everything renders as text, nothing
 * executes, the layout keeps its structure; sampled and inserted tokens are counted in the DOM;
 * filters (in the Runs tree's outcome names), search and next/previous post the right messages;
 * every mark has a legend, the episode header is sticky, search matches are marked in the text, and
 * drift reads as template drift (red, with the diff) or as information (non-canonical splits of
 * sampled tokens, special tokens the model emitted), counted per run. (Speed: trace-chromium.)
 */
import assert from "node:assert/strict";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../src/core/base/chat/tokenizer";
import type { EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { countGoldInResults, goldInResults } from "../../../src/core/views/trace/gold-in-results";
import { buildTraceView } from "../../../src/core/views/trace/trace-view";
import { checkDrift, countDrift, emptyDriftCounts } from "../../../src/core/views/trace/drift";
import { OUTCOME_LABELS, outcomeOf, type Outcome } from "../../../src/core/base/runs/outcome";
import { episodeRows } from "../../../src/extension/trace/trace-panel-rows";
import { requireSharedData } from "../../helpers/shared-data";
import { readHotpot, realEpisode, type HotpotRow } from "../core/views/trace/real-episodes";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";
import { PROTOCOL_VERSION, type WebviewMessage } from "../../../src/extension/webview/protocol";

describe("webview: trace viewer", function () {
  let tok: ChatTokenizer;
  let evil: HotpotRow;
  let episodes: EpisodeRecord[];
  let allRows: HotpotRow[];
  let t: WebviewUnderTest;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    tok = await offlineTokenizer("qwen3");
    await webviewBundles();
    const rows = readHotpot(file);
    allRows = rows;
    // A real record with payloads in the question, a paragraph title and its text.
    const base = rows[1];
    evil = {
      ...base,
      question: `${PAYLOADS[0]} ${base.question} ${PAYLOADS[2]}`,
      context: [[`Evil ${PAYLOADS[1]}`, [`Paragraph ${PAYLOADS[3]} ${base.answer}.`, PAYLOADS[4]]], ...base.context],
    };
    episodes = [
      await realEpisode(tok, evil, [`<search>Evil ${PAYLOADS[5]}</search>`, `<answer>${PAYLOADS[1]}</answer>`]),
      ...(await Promise.all(
        rows
          .slice(2, 6)
          .map((r) => realEpisode(tok, r, [`<search>${r.context[0][0]}</search>`, `<answer>${r.answer}</answer>`])),
      )),
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
      run: {
        runDir: "/runs/x",
        name,
        model: PAYLOADS[3],
        split: "val",
        rows,
        total: rows.length,
        gold: countGoldInResults(rows),
      },
    });
  }

  it("says ready on load and renders payloads as inert text", async () => {
    assert.deepEqual(t.sent[0], { v: PROTOCOL_VERSION, type: "ready" });
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
    const inserted = Array.from(doc.querySelectorAll("#stream .tok.i")).reduce(
      (n, el) => n + Number(el.getAttribute("data-n") ?? "1"),
      0,
    );
    assert.equal(inserted, ep.prompt.length + ep.sampled.filter((s) => s === 0).length);
    assert.equal(doc.querySelectorAll("#stream .turn-sep").length, ep.turns!.length);
    assert.equal(doc.querySelectorAll("#stream details.results").length, 1);
    assert.equal(doc.querySelectorAll("#stream details.prompt:not([open])").length, 1, "the prompt starts collapsed");
    assert.ok(doc.querySelector("#legend .tok.s") && doc.querySelector("#legend .tok.i"), "legend");
    assert.match(
      doc.getElementById("token-counts")!.textContent!,
      new RegExp(
        `${view.sampledCount} sampled · ${view.insertedCount} inserted · prefill ${ep.prefill} · generated ${ep.generated}`,
      ),
    );
    assert.match(doc.getElementById("episode")!.textContent!, /no drift/);
    // Logprob shading: the scripted policy gives -0.5 → bin 1.
    assert.equal(doc.querySelectorAll("#stream .tok.s.lp1").length, view.sampledCount);
    // Hover shows id, text and logprob.
    const span = doc.querySelector("#stream .tok.s")!;
    span.dispatchEvent(new t.window.MouseEvent("mouseover", { bubbles: true }));
    const tip = doc.getElementById("tooltip") as unknown as { hidden: boolean; textContent: string };
    assert.equal(tip.hidden, false);
    const i = Number((span as unknown as { dataset: { i: string } }).dataset.i.slice(1));
    assert.equal(
      tip.textContent,
      `id ${ep.tokens[i]} · ${JSON.stringify(view.tokens.texts[i])} · sampled · logprob -0.500`,
    );
  });

  it("lists episodes with gold-in-results counts; filters, steps and searches through messages", async () => {
    postRun("plain");
    t.post({ type: "trace/episode", episode: buildTraceView(episodes[1], tok), buildMs: 1 });
    await t.settle();
    const doc = t.document;
    assert.equal(doc.getElementById("count")!.textContent, `${episodes.length} of ${episodes.length} episodes`);
    assert.equal(doc.querySelectorAll("#episode-list .row").length, episodes.length);
    const counts = countGoldInResults(episodes.map((e) => ({ primary: e.metrics.f1, gold: goldInResults(e, tok) })));
    assert.equal(doc.getElementById("gold-found-right")!.textContent, String(counts.foundRight));
    // The filters speak the Runs tree's names.
    assert.deepEqual(
      Array.from(doc.querySelectorAll(".outcome-filter")).map((b) => b.getAttribute("label")),
      ["correct", "wrong", "no action", "budget", "length", "other"],
    );
    assert.deepEqual(
      Array.from(doc.querySelectorAll("#episode-list .row")).map((r) => r.className.match(/outcome-(\w+)/)![1]),
      episodes.map((e) => outcomeOf(e.end, e.metrics.em)),
    );
    // Wrong-only: the list shrinks to the answered-but-not-exact episodes.
    for (const box of Array.from(doc.querySelectorAll(".outcome-filter"))) {
      const b = box as unknown as { checked: boolean; dataset: { outcome: string }; dispatchEvent(e: unknown): void };
      b.checked = b.dataset.outcome === "wrong";
      b.dispatchEvent(new t.window.Event("change"));
    }
    const wrong = episodes.filter((e) => e.end === "answer" && e.metrics.em === 0).length;
    assert.equal(doc.getElementById("count")!.textContent, `${wrong} of ${episodes.length} episodes`);
    for (const box of Array.from(doc.querySelectorAll(".outcome-filter"))) {
      (box as unknown as { checked: boolean }).checked = true;
      box.dispatchEvent(new t.window.Event("change"));
    }
    // Next from episode 1 selects episode 2.
    (doc.getElementById("next") as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: PROTOCOL_VERSION, type: "trace/select", episodeId: episodes[2].id });
    // Full-text search goes to the extension; its answer filters the list.
    const input = doc.getElementById("text-search") as unknown as { value: string; dispatchEvent(e: unknown): void };
    input.value = "Evil";
    input.dispatchEvent(new t.window.Event("input"));
    await t.settle(260);
    assert.deepEqual(t.sent.at(-1), { v: PROTOCOL_VERSION, type: "trace/search", query: "Evil" });
    t.post({ type: "trace/searchResult", query: "Evil", ids: [episodes[0].id] });
    assert.equal(doc.getElementById("count")!.textContent, `1 of ${episodes.length} episodes`);
  });

  it("explains every mark: list glyphs, outcome colours and token marks; the episode header is sticky", async () => {
    postRun("plain");
    t.post({ type: "trace/episode", episode: buildTraceView(episodes[1], tok), buildMs: 1 });
    await t.settle();
    const doc = t.document;
    const legend = doc.getElementById("list-legend")!.textContent!;
    for (const glyph of ["●", "○", "·", "2 searches", "correct", "no action"])
      assert.ok(legend.includes(glyph), `list legend explains ${glyph}`);
    assert.match(legend, /gold answer is in the search results/);
    const tokenLegend = Array.from(doc.querySelectorAll("#legend .tok")).map((el) => el.className);
    for (const cls of ["tok s", "tok i", "tok s lp4", "tok i drift", "tok s noncanon", "tok s special", "tok i hit"])
      assert.ok(tokenLegend.includes(cls), `token legend shows ${cls}`);
    const head = doc.getElementById("episode-head")!;
    assert.ok(
      head.querySelector("#question") && head.querySelector("#drift-badge"),
      "question and badges in the sticky header",
    );
    assert.match(head.textContent!, /^plain · /, "the run named in the episode's header");
  });

  it("says each turn once, counts in words, explains a score's colour on hover and shows the j/k keys", async () => {
    postRun("plain");
    t.post({ type: "trace/episode", episode: buildTraceView(episodes[1], tok), buildMs: 1 });
    await t.settle();
    const doc = t.document;
    const stream = doc.getElementById("stream")!;
    const seps = Array.from(stream.querySelectorAll(".turn-sep")).map((e) => e.textContent);
    assert.deepEqual(seps, ["Turn 1", "Turn 2"], "one separator per turn");
    const titles = Array.from(stream.querySelectorAll(".section-title, summary")).map((e) => e.textContent!);
    assert.ok(titles.some((x) => x.startsWith("model reply (")));
    assert.ok(
      titles.every((x) => !/^Turn \d/.test(x)),
      `no title repeats its turn: ${titles.join(" | ")}`,
    );

    const rows = Array.from(doc.querySelectorAll("#episode-list .row"));
    const marks = rows.map((r) => r.querySelector(".searches")!.textContent!);
    assert.ok(
      marks.every((m) => /^\d+ search(es)?$/.test(m)),
      marks.join(", "),
    );
    assert.match(
      doc.getElementById("gold-unchecked")!.textContent!,
      /^\d+ episodes? answered without a search · \d+ yes\/no questions? \(/,
    );

    const score = rows[0].querySelector(".f1")!;
    const outcome = /outcome-(\w+)/.exec(rows[0].className)![1];
    assert.match(
      score.getAttribute("title")!,
      new RegExp(`^F1 \\d\\.\\d{3} · coloured as ${OUTCOME_LABELS[outcome as Outcome]}: `),
    );
    assert.ok(doc.getElementById("list-legend")!.hasAttribute("open"), "the colours' legend is open");
    assert.equal(doc.getElementById("keys-hint")!.textContent, "j next · k previous episode (outside the text fields)");
  });

  it("copies the episode as a table (Markdown, CSV, Save As…): question, answers, scores, then each section's text", async () => {
    postRun("plain");
    const view = buildTraceView(episodes[1], tok);
    t.post({ type: "trace/episode", episode: view, buildMs: 1 });
    await t.settle();
    for (const [id, format, to] of [
      ["episode-copy-markdown", "markdown", "clipboard"],
      ["episode-copy-csv", "csv", "clipboard"],
      ["episode-save", "markdown", "file"],
    ] as const) {
      (t.document.getElementById(id) as unknown as { click(): void }).click();
      const m = t.sent.at(-1) as Extract<WebviewMessage, { type: "table/export" }>;
      assert.deepEqual([m.type, m.format, m.to], ["table/export", format, to]);
    }
    const m = t.sent.at(-1) as Extract<WebviewMessage, { type: "table/export" }>;
    assert.equal(m.table.title, `plain · episode ${view.id}`);
    assert.deepEqual(m.table.headers, ["part", "turn", "text"]);
    assert.deepEqual(m.table.rows[0], ["question", "", view.question]);
    const sections = m.table.rows.slice(-view.sections.length);
    assert.equal(sections.length, view.sections.length);
    assert.equal(
      sections.map((r) => r[2]).join(""),
      [...view.prompt.texts, ...view.tokens.texts].join(""),
      "every token's text, section by section",
    );
  });

  it("highlights the text search's words in the token text and opens the results they are in", async () => {
    postRun("plain");
    const ep = episodes[1];
    const view = buildTraceView(ep, tok);
    t.post({ type: "trace/episode", episode: view, buildMs: 1 });
    await t.settle();
    const doc = t.document;
    const word = (view.tokens.texts.join("").match(/[A-Z][a-z]{4,}/g) ?? [])[0];
    assert.ok(word, "a capitalised word in the episode's text");
    const input = doc.getElementById("text-search") as unknown as { value: string; dispatchEvent(e: unknown): void };
    input.value = word;
    input.dispatchEvent(new t.window.Event("input"));
    await t.settle(260);
    t.post({ type: "trace/searchResult", query: word, ids: [ep.id] });
    await t.settle();
    const hits = Array.from(doc.querySelectorAll("#stream .tok.hit"));
    assert.ok(hits.length > 0);
    const marked = hits.map((el) => el.textContent).join("");
    assert.ok(marked.toLowerCase().includes(word.toLowerCase().slice(0, 3)), `marked text ${JSON.stringify(marked)}`);
    // Matches at word starts only, counted here with a regex over the whole text.
    const atWordStart = new RegExp(`(?<![\\p{L}\\p{N}])${word.toLowerCase()}`, "gu");
    const n = [view.prompt, view.tokens].reduce(
      (sum, st) => sum + (st.texts.join("").toLowerCase().match(atWordStart) ?? []).length,
      0,
    );
    assert.equal(
      doc.getElementById("hit-count")!.textContent,
      `${n} match${n === 1 ? "" : "es"} of “${word}” in this episode`,
    );
    for (const el of hits) {
      const section = el.closest("details");
      if (section) assert.ok(section.hasAttribute("open"), "a collapsed section with a match is opened");
    }
    input.value = "";
    input.dispatchEvent(new t.window.Event("input"));
    await t.settle(260);
    assert.equal(doc.querySelectorAll("#stream .tok.hit").length, 0, "clearing the search clears the marks");
  });

  it("drift: template drift in red with the diff; a non-canonical sampled split and emitted special tokens as information; counts per run", async () => {
    postRun("plain");
    const doc = t.document;
    // A stitching bug: the newline the harness inserts after <|im_end|> lost.
    const ep = episodes[1];
    const turn = ep.turns![0];
    const broken = {
      ...ep,
      tokens: [...ep.tokens.slice(0, turn.reply_end), ...ep.tokens.slice(turn.reply_end + 1)],
      sampled: [...ep.sampled.slice(0, turn.reply_end), ...ep.sampled.slice(turn.reply_end + 1)],
      logprobs: [...ep.logprobs!.slice(0, turn.reply_end), ...ep.logprobs!.slice(turn.reply_end + 1)],
    };
    t.post({ type: "trace/episode", episode: buildTraceView(broken, tok), buildMs: 1 });
    await t.settle();
    assert.match(doc.getElementById("drift-badge")!.textContent!, /^TEMPLATE DRIFT/);
    assert.ok(doc.querySelector("#drift-badge .badge.bad"));
    assert.match(
      doc.getElementById("drift-detail")!.textContent!,
      /^Template drift from token \d+: the template gives "\\n<\|im_start\|>user/,
    );
    assert.ok(doc.querySelectorAll("#stream .tok.drift").length > 0, "the drifted tokens marked");

    // The base model opening its reply with a role header, and its answer spelled one character per token.
    const answer = `<answer>${ep.answers[0]}</answer>`;
    const base = await realEpisode(tok, allRows[7], [`<|im_start|>assistant\n${answer}`]);
    const r0 = base.turns![0];
    const spelled = [...answer].flatMap((ch) => tok.encode(ch));
    const at = r0.start + 3; // after <|im_start|>, "assistant", "\n"
    const canonical = tok.encode(answer).length;
    const odd = {
      ...base,
      tokens: [...base.tokens.slice(0, at), ...spelled, ...base.tokens.slice(at + canonical)],
      sampled: [...base.sampled.slice(0, at), ...spelled.map(() => 1), ...base.sampled.slice(at + canonical)],
      logprobs: [...base.logprobs!.slice(0, at), ...spelled.map(() => -0.2), ...base.logprobs!.slice(at + canonical)],
    };
    t.post({ type: "trace/episode", episode: buildTraceView(odd, tok), buildMs: 1 });
    await t.settle();
    const badges = doc.getElementById("drift-badge")!.textContent!;
    assert.doesNotMatch(badges, /TEMPLATE DRIFT/);
    assert.match(badges, /\d\d? sampled tokens non-canonical/);
    assert.match(badges, /model emitted 1 special token/);
    assert.equal(doc.querySelectorAll("#stream .tok.drift").length, 0, "nothing red");
    assert.ok(doc.querySelectorAll("#stream .tok.noncanon").length > 0);
    assert.equal(doc.querySelectorAll("#stream .tok.special").length, 1);
    assert.equal(doc.querySelector("#stream .tok.special")!.textContent, "<|im_start|>");

    const counts = emptyDriftCounts();
    for (const e of [broken, odd, ep]) countDrift(counts, checkDrift(tok, e.prompt, e.tokens, e.sampled));
    t.post({ type: "trace/driftCounts", counts, total: 3 });
    await t.settle();
    assert.equal(doc.getElementById("run-template-drift")!.textContent, "template drift in 1 episode");
    assert.match(
      doc.getElementById("run-noncanonical")!.textContent!,
      /^non-canonical sampled tokens in 1 \(\d+ tokens, harmless\)$/,
    );
    assert.match(doc.getElementById("run-noncanonical")!.getAttribute("title")!, /normal and harmless/);
    assertInert(t);
  });

  it("refuses a message from another protocol version with a visible error", async () => {
    t.postRaw({ v: 99, type: "trace/run", run: {} });
    t.postRaw({ v: PROTOCOL_VERSION, type: "no/such" });
    await t.settle();
    const errors = t.document.getElementById("errors")!.textContent!;
    assert.match(errors, /protocol version 99/);
    assert.match(errors, /unknown message type "no\/such"/);
  });
});
