/**
 * The compare panel's real webview bundle in happy-dom, fed a real `ablate` report over two runs
 * of real HotpotQA questions whose questions, predictions and run names carry XSS payloads: the
 * table, the forest plot, the flips and pins render as inert text; clicking a flip asks for both
 * traces; chart export posts a clean SVG.
 */
import assert from "node:assert/strict";
import { compareView, type CompareSetup } from "../../../src/core/steps/ablate/compare-setup";
import type { AblationReport } from "../../../src/core/steps/ablate/report-types";
import type { PairView } from "../../../src/core/views/trace/pair-view";
import { exactMatch, f1Score } from "../../../src/core/envs/hotpotqa/score";
import type { RunManifest } from "../../../src/core/base/runs/manifest";
import type { EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { requireSharedData } from "../../helpers/shared-data";
import { fakeManifest, fakeRecord } from "../core/base/runs/fakes";
import { readHotpot } from "../core/views/trace/real-episodes";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";
import { PROTOCOL_VERSION, type WebviewMessage } from "../../../src/extension/webview/protocol";

describe("webview: compare", function () {
  let report: AblationReport;
  let setup: CompareSetup;
  let t: WebviewUnderTest;
  let improvedIds: string[];
  let regressedIds: string[];

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).slice(0, 60);
    await webviewBundles();
    const record = (i: number, prediction: string): EpisodeRecord => {
      const r = rows[i];
      const question = i === 0 ? `${PAYLOADS[0]} ${r.question}` : r.question;
      return fakeRecord(r.id, {
        question,
        answers: [r.answer],
        prediction,
        em: exactMatch(prediction, [r.answer]),
        f1: f1Score(prediction, [r.answer]),
        reward: f1Score(prediction, [r.answer]),
      });
    };
    // Baseline right on even questions; the candidate right on all but 5 of them, plus question 0's payload answer.
    const base = rows.map((r, i) => record(i, i % 2 === 0 ? r.answer : "unknown"));
    const cand = rows.map((r, i) => record(i, i === 0 ? PAYLOADS[1] : i % 10 === 2 ? "unknown" : r.answer));
    improvedIds = rows.filter((_, i) => i % 2 === 1 && i % 10 !== 2).map((r) => r.id);
    regressedIds = rows.filter((_, i) => i === 0 || i % 10 === 2).map((r) => r.id);
    const mA = fakeManifest();
    // Picked by hand and confounded: another checkpoint and another searcher index, so nothing is preset and both are warned about.
    const mB: RunManifest = {
      ...fakeManifest(),
      policy: { ...fakeManifest().policy, checkpoint: `sft-e2 ${PAYLOADS[2]}` },
      search: { ...fakeManifest().search!, searcher: { kind: "bm25", index_sha256: "dd" } },
    };
    ({ report, setup } = compareView(
      [
        { name: `base ${PAYLOADS[3]}`, dir: "/runs/base", manifest: mA, episodes: base },
        { name: `sft ${PAYLOADS[4]}`, dir: "/runs/sft", manifest: mB, episodes: cand },
      ],
      "runs",
      undefined,
      [],
    ));
  });
  beforeEach(async () => {
    t = await openWebview("compare");
    t.post({ type: "compare/report", report, setup });
    await t.settle();
  });
  afterEach(async () => {
    await t.close();
  });

  it("renders the table, warnings and forest plot as inert text", () => {
    assertInert(t);
    const doc = t.document;
    const bodyRows = doc.querySelectorAll("#ablation-table tbody tr");
    assert.equal(bodyRows.length, 2);
    const cand = bodyRows[1].textContent!;
    const c = report.comparisons[0];
    assert.ok(cand.startsWith(`sft ${PAYLOADS[4]}`), cand);
    const sign = (x: number) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(3);
    assert.ok(
      cand.includes(`${sign(c.primary.delta)} [${sign(c.primary.ci.lo)}, ${sign(c.primary.ci.hi)}]`),
      "signed Δ F1 with its paired CI",
    );
    assert.match(bodyRows[1].querySelector(".delta-f1")!.textContent!, /^[+−]\d\.\d{3} \[[+−]/);
    assert.ok(cand.includes(c.primary.verdict));
    assert.ok(cand.includes(c.primary.mde.toFixed(3)), "MDE");
    assert.match(doc.getElementById("warnings")!.textContent!, /policy\.checkpoint/);
    assert.ok(
      doc.getElementById("warnings")!.textContent!.includes("</textarea><svg onload="),
      "the differing value is shown as text",
    );
    // One CI line per comparison in each forest plot, coloured by its verdict.
    const ci = doc.querySelectorAll("#forest line.ci");
    assert.equal(ci.length, 2);
    assert.match(ci[0].getAttribute("class")!, new RegExp(`verdict-${c.primary.verdict.replace(/\s+/g, "-")}`));
  });

  it("names the runs' environment even when it is HotpotQA (whose manifests carry no environment field)", () => {
    assert.equal(report.environment.name, "hotpotqa");
    assert.match(t.document.getElementById("environment")!.textContent!, /^environment hotpotqa v1 /);
  });

  it("lists improved and regressed questions with gold answers; a click asks for the pair", () => {
    const doc = t.document;
    const ids = (sel: string) => Array.from(doc.querySelectorAll(`${sel} li`)).map((li) => li.getAttribute("data-id"));
    assert.deepEqual(ids("#improved").sort(), [...improvedIds].sort());
    assert.deepEqual(ids("#regressed").sort(), [...regressedIds].sort());
    const first = doc.querySelector(`#regressed li[data-id="${regressedIds[0]}"]`)!;
    assert.ok(first.textContent!.includes(PAYLOADS[0]), "the payload question is shown as text");
    assert.ok(
      first
        .querySelector(".gold")!
        .textContent!.includes(`gold: ${report.questions.find((q) => q.id === regressedIds[0])!.answers[0]}`),
    );
    (first as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), {
      v: PROTOCOL_VERSION,
      type: "compare/openPair",
      questionId: regressedIds[0],
      runs: [0, 1],
    });
  });

  it("pins a question and shows its answer in every run, in order", async () => {
    const doc = t.document;
    const pin = doc.querySelector(`#regressed li[data-id="${regressedIds[0]}"] .pin`)!;
    (pin as unknown as { click(): void }).click();
    await t.settle();
    const items = Array.from(doc.querySelectorAll("#pins li")).map((li) => li.textContent);
    assert.equal(items.length, 2);
    assert.ok(items[0]!.startsWith(`base ${PAYLOADS[3]}`));
    assert.ok(items[1]!.includes(`“${PAYLOADS[1]}”`));
    assertInert(t);
  });

  it("exports a chart as SVG text without anything executable", () => {
    const button = t.document.querySelector("#forest .export[data-format='svg']")!;
    (button as unknown as { click(): void }).click();
    const m = t.sent.at(-1) as { type: string; format: string; name: string; data: string };
    assert.equal(m.type, "export");
    assert.equal(m.format, "svg");
    assert.equal(m.name, "delta-f1");
    assert.match(m.data, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // No element and no attribute that runs code (payload text inside <title> is escaped text, not markup).
    assert.doesNotMatch(m.data, /<script|<[a-z][^>]*\son\w+=/i);
    assert.ok(m.data.includes("&lt;") || !m.data.includes(PAYLOADS[4]), "payload text in the SVG is escaped");
  });

  it("ticks the fields that differ and asks for the comparison again when one changes", async () => {
    const doc = t.document;
    const boxes = Array.from(doc.querySelectorAll("#expected .expect-field")) as unknown as HTMLInputElement[];
    assert.deepEqual(
      boxes.map((b) => [b.value, b.checked]),
      [
        ["policy.checkpoint", false],
        ["search.searcher.index_sha256", false],
      ],
      "opened by hand on runs that differ in a checkpoint and a search setting: nothing preset",
    );
    assert.match(doc.getElementById("warnings")!.textContent!, /tick it under “Expected to differ”/);
    boxes[0].checked = true;
    boxes[0].dispatchEvent(new t.window.Event("change") as unknown as Event);
    assert.deepEqual(t.sent.at(-1), { v: PROTOCOL_VERSION, type: "compare/setExpect", expect: ["policy.checkpoint"] });

    // The host answers with the report computed that way: no warning about the checkpoint any more.
    const again = compareView(
      report.runs
        .map((r, i) => ({
          name: r.name,
          dir: r.dir,
          manifest:
            i === 0
              ? fakeManifest()
              : { ...fakeManifest(), policy: { ...fakeManifest().policy, checkpoint: `sft-e2 ${PAYLOADS[2]}` } },
          episodes: [],
        }))
        .map((x, i) => ({
          ...x,
          episodes: report.questions.map((q) => fakeRecord(q.id, { f1: q.primary[i], em: q.binary[i] })),
        })),
      "checkpoint",
      undefined,
      [],
    );
    t.post({ type: "compare/report", report: again.report, setup: again.setup });
    await t.settle();
    const checked = Array.from(doc.querySelectorAll("#expected .expect-field")).map(
      (b) => (b as unknown as HTMLInputElement).checked,
    );
    assert.deepEqual(checked, [true]);
    assert.doesNotMatch(doc.getElementById("warnings")!.textContent!, /policy\.checkpoint/);
    assert.match(doc.getElementById("expected")!.textContent!, /Opened to compare checkpoints/);
  });

  it("shows a warning's differing values whole on hover (the text shortens them)", () => {
    const li = t.document.querySelector("#warnings li")!;
    assert.ok(li.textContent!.includes('policy.checkpoint ((absent) → "sft-e2 '), li.textContent!);
    assert.ok(!li.textContent!.includes(PAYLOADS[2]) && li.textContent!.includes("…"), "shortened in the text");
    const title = li.getAttribute("title")!;
    assert.ok(title.includes(`policy.checkpoint: (absent) → sft-e2 ${PAYLOADS[2]}`), title);
    assert.ok(title.includes(`search.searcher.index_sha256: cc → dd`), title);
  });

  it("lists the flips of the last pair first (a pipeline's GRPO, not its closed-book run)", async () => {
    const [base, cand] = report.runs.map((r, i) =>
      report.questions.map((q) => fakeRecord(q.id, { f1: q.primary[i], em: q.binary[i] })),
    );
    const three = compareView(
      [
        { name: "base", dir: "/runs/base", manifest: fakeManifest(), episodes: base },
        { name: "same", dir: "/runs/same", manifest: fakeManifest(), episodes: base },
        { name: "cand", dir: "/runs/cand", manifest: fakeManifest(), episodes: cand },
      ],
      "runs",
      undefined,
      [],
    );
    t.post({ type: "compare/report", report: three.report, setup: three.setup });
    await t.settle();
    const picker = t.document.getElementById("comparison-picker") as unknown as HTMLSelectElement;
    assert.equal(picker.value, "1");
    assert.equal(t.document.querySelector("#comparison-picker option[selected]")?.textContent, "cand vs base");
    assert.equal(t.document.querySelectorAll("#improved li").length, improvedIds.length, "cand vs base's flips");
  });

  it("copies the whole table, the hidden columns too, as Markdown or CSV", () => {
    (t.document.getElementById("compare-table-copy-csv") as unknown as { click(): void }).click();
    const m = t.sent.at(-1) as Extract<WebviewMessage, { type: "table/export" }>;
    assert.deepEqual([m.type, m.format, m.to], ["table/export", "csv", "clipboard"]);
    assert.equal(m.table.headers.length, 9 + 7, "the shown columns (run first) and the less-used ones");
    assert.equal(m.table.rows.length, 2);
    assert.equal(m.table.rows[1][0], `sft ${PAYLOADS[4]}`);
    assert.ok(m.table.rows[1].includes(report.comparisons[0].primary.verdict));
    assert.ok(m.table.notes!.some((n) => /10,000 resamples, seed 0/.test(n)));
  });

  it("hides the less-used columns until asked, so the table fits", async () => {
    const doc = t.document;
    const table = doc.getElementById("ablation-table")!;
    assert.ok(!table.classList.contains("show-more"));
    assert.equal(doc.querySelectorAll("#ablation-table thead th.more").length, 7);
    assert.equal(doc.querySelectorAll("#ablation-table thead th:not(.more)").length, 9);
    (doc.getElementById("more-columns") as unknown as { click(): void }).click();
    await t.settle();
    assert.ok(doc.getElementById("ablation-table")!.classList.contains("show-more"));
    assert.match(doc.getElementById("method")!.textContent!, /10,000 resamples/);
  });

  it("shows a flip's two episodes in one view, turn by turn, and opens a full trace on request", async () => {
    const doc = t.document;
    const q = report.questions.find((x) => x.id === regressedIds[1])!;
    (doc.querySelector(`#regressed li[data-id="${q.id}"]`) as unknown as { click(): void }).click();
    await t.settle();
    assert.match(doc.getElementById("pair")!.textContent!, /Loading both episodes/);
    const side = (run: string, prediction: string) => ({
      run,
      prediction,
      primary: 0,
      binary: 0,
      end: "answer",
      searches: 1,
      generated: 12,
    });
    const pair: PairView = {
      questionId: q.id,
      question: q.question,
      answers: q.answers,
      sides: [side("base", q.prediction[0]), side("sft", PAYLOADS[1])],
      samePrompt: true,
      turns: [
        {
          turn: 1,
          a: {
            action: "search",
            reply: `<search>${PAYLOADS[2]}</search>`,
            query: PAYLOADS[2],
            hits: ["Paris", PAYLOADS[0]],
            inserted: "<result>…</result>",
          },
          b: { action: "answer", reply: "<answer>x</answer>", hits: [], inserted: "" },
        },
        { turn: 2, a: { action: "answer", reply: "<answer>y</answer>", hits: [], inserted: "" } },
      ],
    };
    t.post({ type: "compare/pair", pair });
    await t.settle();
    assertInert(t);
    const grid = doc.getElementById("pair-grid")!;
    assert.deepEqual(
      Array.from(grid.querySelectorAll(".turn-label"))
        .map((e) => e.textContent)
        .filter(Boolean),
      ["turn 1", "turn 2"],
    );
    assert.equal(grid.querySelectorAll(".pair-cell.side-a").length, 3, "header + two turns in one column");
    assert.match(grid.querySelectorAll(".pair-cell.side-b")[2].textContent!, /episode had ended/);
    assert.ok(
      grid.textContent!.includes(PAYLOADS[2]) && grid.textContent!.includes(PAYLOADS[0]),
      "untrusted text as text",
    );
    assert.match(
      doc.querySelector("#pair .gold")!.textContent!,
      new RegExp(`gold: ${q.answers[0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    (doc.querySelectorAll("#pair .open-trace")[1] as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: PROTOCOL_VERSION, type: "compare/openTrace", questionId: q.id, run: 1 });
  });

  it("shows the system prompts' diff, or why it cannot", async () => {
    const withDiff: CompareSetup = {
      ...setup,
      prompts: [
        {
          run: "sft",
          baseline: { file: "system.prompt.md", sha256: "aa".repeat(32), text: "a\nb" },
          other: { file: "system.prompt.md", sha256: "bb".repeat(32), text: "a\nc" },
          lines: [
            { op: "same", text: "a" },
            { op: "removed", text: "b" },
            { op: "added", text: PAYLOADS[3] },
          ],
        },
      ],
    };
    t.post({ type: "compare/report", report, setup: withDiff });
    await t.settle();
    const doc = t.document;
    assert.deepEqual(
      Array.from(doc.querySelectorAll("#prompt-diffs .prompt-diff > div")).map((d) => d.className),
      ["diff-same", "diff-removed", "diff-added"],
    );
    assert.ok(doc.querySelector("#prompt-diffs .diff-added")!.textContent!.includes(PAYLOADS[3]));
    assertInert(t);
    t.post({
      type: "compare/report",
      report,
      setup: {
        ...setup,
        prompts: [{ ...withDiff.prompts[0], lines: null, baseline: { ...withDiff.prompts[0].baseline, text: null } }],
      },
    });
    await t.settle();
    assert.match(doc.getElementById("prompt-diffs")!.textContent!, /not on disk any more/);
  });
});
