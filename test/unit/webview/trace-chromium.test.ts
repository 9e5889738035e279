/// <reference lib="dom" />
/**
 * The trace viewer in real Chromium under its real CSP: time to interactive for a 20,000-token
 * episode (target 200 ms) and for a 10,000-episode list (500 ms), measured and printed, failing
 * only at several times their targets (bench/panels makes the claims); payloads stay
 * inert with scripts actually running; no CSP violation from our own code or @vscode-elements.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../src/core/base/chat/tokenizer";
import type { EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { buildTraceView } from "../../../src/core/views/trace/trace-view";
import { toColumns, type EpisodeRow } from "../../../src/core/views/trace/episode-list";
import { hostMessage, LIST_HEAD_ROWS } from "../../../src/extension/webview/protocol";
import { episodeRows } from "../../../src/extension/trace/trace-panel-rows";
import { requireSharedData } from "../../helpers/shared-data";
import { readHotpot, realEpisode, type HotpotRow } from "../core/views/trace/real-episodes";
import { cspViolations, launch, openPanelPage } from "./chromium-page";
import { PAYLOADS } from "./webview-dom";
import { speedGuardMs } from "../../helpers/load-scaled";

/** A real episode grown to `total` tokens by real Wikipedia text in its first result block. */
export function longEpisode(base: EpisodeRecord, filler: number[], total: number): EpisodeRecord {
  const need = total - base.tokens.length;
  const at = base.turns![0].end - 3;
  return {
    ...base,
    tokens: [...base.tokens.slice(0, at), ...filler.slice(0, need), ...base.tokens.slice(at)],
    sampled: [...base.sampled.slice(0, at), ...new Array(need).fill(0), ...base.sampled.slice(at)],
    logprobs: [...base.logprobs!.slice(0, at), ...new Array(need).fill(0), ...base.logprobs!.slice(at)],
    turns: base.turns!.map((tr, i) =>
      i === 0
        ? { ...tr, end: tr.end + need }
        : { ...tr, start: tr.start + need, reply_end: tr.reply_end + need, end: tr.end + need },
    ),
  };
}

describe("webview: trace viewer in Chromium (CSP, speed)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let tok: ChatTokenizer;
  let rows: HotpotRow[];
  let base: EpisodeRecord;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    browser = await launch(this);
    tok = await offlineTokenizer("qwen3");
    rows = readHotpot(file);
    base = await realEpisode(tok, rows[3], [
      `<search>${rows[3].context[0][0]}</search>`,
      `<answer>${rows[3].answer}</answer>`,
    ]);
  });
  after(async () => {
    await browser?.close();
  });

  it("a 20,000-token episode: every token on the page, its time printed against 200 ms, hover shows a token", async () => {
    const filler = tok.encode(
      rows
        .flatMap((r) => r.context.map(([title, s]) => `[${title}] ${s.join("")}`))
        .join("\n\n")
        .slice(0, 120_000),
    );
    const long = longEpisode(base, filler, 20_000);
    const t0 = performance.now();
    const view = buildTraceView(long, tok, { drift: false });
    const viewMs = performance.now() - t0;
    const p = await openPanelPage(browser, "trace");
    await p.postTimed(
      hostMessage({
        type: "trace/run",
        run: { runDir: "/r", name: "long", rows: episodeRows([long]), total: 1, gold: null },
      }),
    );
    const times: number[] = [];
    for (let i = 0; i < 5; i++)
      times.push(await p.postTimed(hostMessage({ type: "trace/episode", episode: view, buildMs: viewMs })));
    // Every token is on the page: sampled ones as spans, inserted ones in pieces that say how many.
    const covered = await p.page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>("#stream .tok")).reduce(
        (s, el) => s + Number(el.dataset.n ?? "1"),
        0,
      ),
    );
    assert.equal(covered, 20_000 + long.prompt.length);
    // Median of five: the machine is shared, single runs jitter.
    const median = [...times].sort((a, b) => a - b)[2];
    console.log(
      `      20,000 tokens: view model ${viewMs.toFixed(0)} ms (extension) + render to first frame ${times.map((t) => t.toFixed(0)).join("/")} ms (Chromium) → ${(viewMs + median).toFixed(0)} ms`,
    );
    const limit = speedGuardMs(200);
    assert.ok(viewMs + median < limit, `took ${(viewMs + median).toFixed(0)} ms (limit ${limit} ms at this load)`);
    // Hovering inside the long results block shows the token under the pointer, with its id.
    const box = await p.page.evaluate(() => {
      const piece = document.querySelectorAll<HTMLElement>("#stream details.results .piece")[10];
      piece.scrollIntoView({ block: "center" });
      const r = piece.getBoundingClientRect();
      return { x: r.left + 5, y: r.top + 5 };
    });
    await p.page.mouse.move(box.x, box.y);
    await p.page.waitForTimeout(50);
    const tip = await p.page.evaluate(() => ({
      text: document.getElementById("tooltip")!.textContent,
      hidden: document.getElementById("tooltip")!.hidden,
    }));
    assert.equal(tip.hidden, false);
    assert.match(tip.text!, /^id \d+ · ".*" · inserted · logprob –$/);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(await cspViolations(p), []);
  });

  it("a 10,000-episode list: its first rows drawn from a small message, the rest from a columnar one; filters, scroll and updates see all of it", async () => {
    const template = episodeRows([base])[0];
    const many: EpisodeRow[] = Array.from({ length: 10_000 }, (_, i) => ({
      ...template,
      id: `q${i}`,
      f1: (i % 10) / 10,
      searches: i % 6,
    }));
    const p = await openPanelPage(browser, "trace");
    const count = () => p.page.evaluate(() => document.getElementById("count")!.textContent);
    // What the host sends: the head (LIST_HEAD_ROWS rows, before the rest is indexed: no total),
    // then after the first frame the head again with the total, and the rest.
    const head = hostMessage({
      type: "trace/run",
      run: { runDir: "/r", name: "big", rows: many.slice(0, LIST_HEAD_ROWS), total: null, gold: null },
    });
    assert.ok(JSON.stringify(head).length < 64_000, `the first message is ${JSON.stringify(head).length} bytes`);
    const headMs = await p.postTimed(head);
    const drawn = await p.page.evaluate(() => document.querySelectorAll("#episode-list .row").length);
    assert.ok(drawn > 10 && drawn < 200, `${drawn} rows in the DOM`);
    assert.equal(await count(), `${LIST_HEAD_ROWS} of the first ${LIST_HEAD_ROWS} episodes (listing the rest…)`);
    await p.postTimed(
      hostMessage({
        type: "trace/run",
        run: { runDir: "/r", name: "big", rows: many.slice(0, LIST_HEAD_ROWS), total: many.length, gold: null },
      }),
    );
    assert.equal(
      await count(),
      `${LIST_HEAD_ROWS} of the first ${LIST_HEAD_ROWS} of 10000 episodes (listing the rest…)`,
    );
    const restMs = await p.postTimed(
      hostMessage({
        type: "trace/rows",
        runDir: "/r",
        from: LIST_HEAD_ROWS,
        rows: toColumns(many.slice(LIST_HEAD_ROWS)),
      }),
    );
    assert.equal(await count(), "10000 of 10000 episodes");
    const scrollMs = await p.page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const list = document.getElementById("episode-list")!;
          const t0 = performance.now();
          list.scrollTop = 26 * 6000;
          list.dispatchEvent(new Event("scroll"));
          requestAnimationFrame(() => resolve(performance.now() - t0));
        }),
    );
    const firstShown = await p.page.evaluate(() =>
      document.querySelector("#episode-list .row")?.getAttribute("data-id"),
    );
    assert.ok(Number(firstShown!.slice(1)) > 5900, `first row drawn ${firstShown}`);
    // The filters see every row, the rest's too.
    // Filtered while scrolled far down: the shorter list is drawn at once from where the browser will
    // pull the scroll position back to (its last rows), not empty until the next frame's scroll event.
    const shown = await p.page.evaluate(() => {
      const input = document.getElementById("searches-min") as HTMLInputElement;
      input.value = "5";
      input.dispatchEvent(new Event("input"));
      return Array.from(document.querySelectorAll<HTMLElement>("#episode-list .row")).map((r) => r.dataset.id!);
    });
    assert.ok(
      shown.length > 10 && shown.includes("q9995"),
      `${shown.length} rows drawn at once after the filter: ${shown.slice(-3).join(", ")}`,
    );
    assert.equal(await count(), `${many.filter((r) => r.searches >= 5).length} of 10000 episodes`);
    await p.page.fill("#searches-min", "");
    // The same run posted again (its gold marks): the list keeps its length until the new rest is in.
    await p.postTimed(
      hostMessage({
        type: "trace/run",
        run: {
          runDir: "/r",
          name: "big",
          rows: many.slice(0, LIST_HEAD_ROWS).map((r) => ({ ...r, gold: "found" })),
          total: many.length,
          gold: null,
        },
      }),
    );
    assert.equal(await count(), "10000 of 10000 episodes");
    // Another run's rest, or one that does not follow what is here, is not taken.
    await p.postTimed(
      hostMessage({ type: "trace/rows", runDir: "/other", from: LIST_HEAD_ROWS, rows: toColumns(many.slice(0, 5)) }),
    );
    assert.equal(await count(), "10000 of 10000 episodes");
    // The panel reused for another run while scrolled down in this one (both messages before a
    // frame): the new list is drawn from its top.
    const top = await p.page.evaluate(
      (ms) => {
        for (const m of ms) window.dispatchEvent(new MessageEvent("message", { data: m }));
        return {
          first: document.querySelector("#episode-list .row")?.getAttribute("data-id"),
          scrollTop: document.getElementById("episode-list")!.scrollTop,
        };
      },
      [
        hostMessage({ type: "retarget", state: { kind: "trace", runDir: "/other" } }),
        hostMessage({
          type: "trace/run",
          run: {
            runDir: "/other",
            name: "other",
            rows: many.slice(0, LIST_HEAD_ROWS).map((r) => ({ ...r, id: `o${r.id}` })),
            total: LIST_HEAD_ROWS,
            gold: null,
          },
        }),
      ],
    );
    assert.deepEqual(top, { first: "oq0", scrollTop: 0 });
    console.log(
      `      10,000 episodes: first ${LIST_HEAD_ROWS} rows ${headMs.toFixed(0)} ms, the rest ${restMs.toFixed(0)} ms, scroll repaint ${scrollMs.toFixed(0)} ms, ${drawn} rows in the DOM`,
    );
    for (const [what, ms, target] of [
      ["first rows", headMs, 500],
      ["the rest", restMs, 500],
      ["scroll repaint", scrollMs, 100],
    ] as const) {
      assert.ok(
        ms < speedGuardMs(target),
        `${what} took ${ms.toFixed(0)} ms (target ${target} ms, limit ${speedGuardMs(target)} ms at this load)`,
      );
    }
    assert.deepEqual(p.errors, []);
  });

  it("a new page lays out only its loading line until its data, draws the data without reading layout, and draws more rows when the list grows", async () => {
    // Each of these reads forces a layout when the DOM changed; before a new page's first frame that
    // layout is the page's first, which held the first draw about 30 ms (headless Chromium). Panes
    // laid out empty before the data held back the page's load event, after which VS Code delivers it.
    const watchLayoutReads = `
      window.__layoutReads = [];
      const watch = (proto, name) => {
        const d = Object.getOwnPropertyDescriptor(proto, name);
        Object.defineProperty(proto, name, { ...d, get() { window.__layoutReads.push(name); return d.get.call(this); } });
      };
      for (const name of ["clientHeight", "clientWidth", "scrollTop", "scrollHeight"]) watch(Element.prototype, name);
      for (const name of ["offsetHeight", "offsetWidth", "offsetTop"]) watch(HTMLElement.prototype, name);
      const rect = Element.prototype.getBoundingClientRect;
      Element.prototype.getBoundingClientRect = function () { window.__layoutReads.push("getBoundingClientRect"); return rect.call(this); };
      const style = window.getComputedStyle;
      window.getComputedStyle = function (...a) { window.__layoutReads.push("getComputedStyle"); return style.apply(this, a); };
    `;
    const p = await openPanelPage(browser, "trace", "vscode-dark", watchLayoutReads);
    assert.deepEqual(
      await p.page.evaluate(() => [
        document.querySelector(".trace-layout"),
        document.querySelector("#app")!.textContent,
      ]),
      [null, "Loading…"],
    );
    const template = episodeRows([base])[0];
    const rows: EpisodeRow[] = Array.from({ length: 500 }, (_, i) => ({ ...template, id: `q${i}` }));
    await p.postTimed(
      hostMessage({
        type: "trace/run",
        run: { runDir: "/r", name: "r", rows: rows.slice(0, LIST_HEAD_ROWS), total: rows.length, gold: null },
      }),
    );
    await p.postTimed(hostMessage({ type: "trace/episode", episode: buildTraceView(base, tok), buildMs: 0 }));
    const reads = await p.page.evaluate(() => (window as unknown as { __layoutReads: string[] }).__layoutReads);
    assert.deepEqual(reads, []);
    const drawn = () => p.page.evaluate(() => document.querySelectorAll("#episode-list .row").length);
    const before = await drawn();
    assert.ok(before > 10, `${before} rows drawn`);
    await p.page.setViewportSize({ width: 1400, height: 2400 });
    await p.postTimed(hostMessage({ type: "state", state: { kind: "trace", runDir: "/r" } })); // two frames: the resize observed and drawn
    const after = await drawn();
    assert.ok(after > before + 30, `${before} rows at 900 px, ${after} at 2400 px`);
    assert.deepEqual(p.errors, []);
  });

  it("payloads stay inert with scripts running under the CSP, in light and high-contrast themes too", async () => {
    const evil: HotpotRow = {
      ...rows[1],
      question: `${PAYLOADS[0]} ${PAYLOADS[2]}`,
      context: [[`T ${PAYLOADS[1]}`, [`${PAYLOADS[3]} ${PAYLOADS[4]}`]], ...rows[1].context],
    };
    const ep = await realEpisode(tok, evil, [`<search>T ${PAYLOADS[5]}</search>`, `<answer>${PAYLOADS[1]}</answer>`]);
    for (const theme of ["vscode-dark", "vscode-light", "vscode-high-contrast"]) {
      const p = await openPanelPage(browser, "trace", theme);
      await p.postTimed(
        hostMessage({
          type: "trace/run",
          run: { runDir: "/r", name: PAYLOADS[1], model: PAYLOADS[0], rows: episodeRows([ep]), total: 1, gold: null },
        }),
      );
      await p.postTimed(hostMessage({ type: "trace/episode", episode: buildTraceView(ep, tok), buildMs: 0 }));
      await p.page.hover("#stream .tok.s");
      await p.page.waitForTimeout(50);
      const result = await p.page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: unknown }).__pwned,
        bad: document.querySelectorAll("#app script, #app img, #app iframe, #app textarea, #app b").length,
        question: document.getElementById("question")?.textContent,
        // Sampled and inserted tokens must look different in every theme.
        look: [document.querySelector("#stream .tok.s")!, document.querySelector("#stream .tok.i")!].map((el) => {
          const cs = getComputedStyle(el);
          return [cs.backgroundColor, cs.color, cs.textDecorationLine, cs.fontWeight].join(" ");
        }),
      }));
      assert.equal(result.pwned, undefined, theme);
      assert.equal(result.bad, 0, theme);
      assert.equal(result.question, evil.question);
      assert.notEqual(result.look[0], result.look[1], `${theme}: sampled and inserted tokens look alike`);
      assert.deepEqual(p.errors, [], theme);
      assert.deepEqual(await cspViolations(p), [], theme);
      await p.page.close();
    }
  });

  it("the episode's header (run, question, outcome, drift) stays in view while the tokens scroll", async () => {
    const filler = tok.encode(
      rows
        .flatMap((r) => r.context.map(([title, ss]) => `[${title}] ${ss.join("")}`))
        .join("\n\n")
        .slice(0, 40_000),
    );
    const long = longEpisode(base, filler, 6000);
    const p = await openPanelPage(browser, "trace");
    await p.postTimed(
      hostMessage({
        type: "trace/run",
        run: { runDir: "/r", name: "val-run", rows: episodeRows([long]), total: 1, gold: null },
      }),
    );
    await p.postTimed(
      hostMessage({ type: "trace/episode", episode: buildTraceView(long, tok, { drift: false }), buildMs: 0 }),
    );
    const at = await p.page.evaluate(() => {
      const pane = document.getElementById("episode")!;
      const head = document.getElementById("episode-head")!;
      pane.scrollTop = 5000;
      return {
        scrolled: pane.scrollTop,
        paneTop: pane.getBoundingClientRect().top,
        headTop: head.getBoundingClientRect().top,
        position: getComputedStyle(head).position,
        text: head.textContent,
      };
    });
    assert.ok(at.scrolled > 1000, `the pane scrolled (${at.scrolled} px)`);
    assert.equal(at.position, "sticky");
    assert.ok(Math.abs(at.headTop - at.paneTop) < 2, `header at ${at.headTop}, pane at ${at.paneTop}`);
    assert.match(at.text ?? "", /^val-run/);
    assert.deepEqual(p.errors, []);
  });
});
