/**
 * The compare panel's real webview bundle in happy-dom, fed a real `ablate` report over two runs
 * of real HotpotQA questions whose questions, predictions and run names carry XSS payloads: the
 * table, the forest plot, the flips and pins render as inert text; clicking a flip asks for both
 * traces; chart export posts a clean SVG.
 */
import assert from "node:assert/strict";
import { ablate } from "../../../src/core/analysis/ablate";
import type { AblationReport } from "../../../src/core/analysis/report-types";
import { exactMatch, f1Score } from "../../../src/core/score";
import type { EpisodeRecord } from "../../../src/core/runs/run-files";
import { requireSharedData } from "../../helpers/shared-data";
import { fakeManifest, fakeRecord } from "../core/runs/fakes";
import { readHotpot } from "../core/trace/real-episodes";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";

describe("webview: compare", function () {
  let report: AblationReport;
  let t: WebviewUnderTest;
  let improvedIds: string[];
  let regressedIds: string[];

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).slice(0, 60);
    await webviewBundles();
    const record = (i: number, prediction: string): EpisodeRecord => {
      const r = rows[i];
      const question = i === 0 ? `${PAYLOADS[0]} ${r.question}` : r.question;
      return fakeRecord(r.id, { question, answers: [r.answer], prediction, em: exactMatch(prediction, [r.answer]), f1: f1Score(prediction, [r.answer]), reward: f1Score(prediction, [r.answer]) });
    };
    // Baseline right on even questions; the candidate right on all but 5 of them, plus question 0's payload answer.
    const base = rows.map((r, i) => record(i, i % 2 === 0 ? r.answer : "unknown"));
    const cand = rows.map((r, i) => record(i, i === 0 ? PAYLOADS[1] : i % 10 === 2 ? "unknown" : r.answer));
    improvedIds = rows.filter((_, i) => i % 2 === 1 && i % 10 !== 2).map((r) => r.id);
    regressedIds = rows.filter((_, i) => i === 0 || i % 10 === 2).map((r) => r.id);
    const mA = fakeManifest();
    const mB = { ...fakeManifest(), policy: { ...fakeManifest().policy, checkpoint: `sft-e2 ${PAYLOADS[2]}` } };
    report = ablate(
      [
        { name: `base ${PAYLOADS[3]}`, dir: "/runs/base", manifest: mA, episodes: base },
        { name: `sft ${PAYLOADS[4]}`, dir: "/runs/sft", manifest: mB, episodes: cand },
      ],
      { resamples: 500, seed: 1 },
    );
  });
  beforeEach(async () => {
    t = await openWebview("compare");
    t.post({ type: "compare/report", report });
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
    assert.ok(cand.includes(`${c.f1.delta.toFixed(3)} [${c.f1.ci.lo.toFixed(3)}, ${c.f1.ci.hi.toFixed(3)}]`), "Δ F1 with its paired CI");
    assert.ok(cand.includes(c.f1.verdict));
    assert.ok(cand.includes(c.f1.mde.toFixed(3)), "MDE");
    assert.match(doc.getElementById("warnings")!.textContent!, /policy\.checkpoint/);
    assert.ok(doc.getElementById("warnings")!.textContent!.includes("</textarea><svg onload="), "the differing value is shown as text");
    // One CI line per comparison in each forest plot, coloured by its verdict.
    const ci = doc.querySelectorAll("#forest line.ci");
    assert.equal(ci.length, 2);
    assert.match(ci[0].getAttribute("class")!, new RegExp(`verdict-${c.f1.verdict.replace(/\s+/g, "-")}`));
  });

  it("lists improved and regressed questions; a click asks for both traces side by side", () => {
    const doc = t.document;
    const ids = (sel: string) => Array.from(doc.querySelectorAll(`${sel} li`)).map((li) => li.getAttribute("data-id"));
    assert.deepEqual(ids("#improved").sort(), [...improvedIds].sort());
    assert.deepEqual(ids("#regressed").sort(), [...regressedIds].sort());
    const first = doc.querySelector(`#regressed li[data-id="${regressedIds[0]}"]`)!;
    assert.ok(first.textContent!.includes(PAYLOADS[0]), "the payload question is shown as text");
    (first as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: 1, type: "compare/openPair", questionId: regressedIds[0], runs: [0, 1] });
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
});
