/**
 * summary.json format 2 (`format`, `metrics: {name: mean}` for every declared metric) and its one
 * reader: a format-1 summary (top-level `em`/`f1` slots, as every earlier build wrote them) of each
 * environment reads back as format 2 with the same numbers, named by the run's environment's
 * declarations, and the recipe's closing line prints what it printed for either format.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { readSummary, readSummaryHead } from "../../../../../src/core/base/runs/run-files";
import { finalLine, summarize, SUMMARY_FORMAT } from "../../../../../src/core/base/runs/summary";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";
import { GSM8K } from "../../../../../src/core/envs/gsm8k/environment";
import { GSM8K_WORLD_NAME } from "../../../../../src/core/envs/gsm8k/world-info";
import { HOTPOTQA } from "../../../../../src/core/envs/hotpotqa";
import { fakeRecord, formatOneSummary } from "./fakes";

describe("runs/summary: format 2 and the format-1 reader", () => {
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-summary-"))));
  after(() => rmSync(root, { recursive: true, force: true }));

  let count = 0;
  /** A run folder with this summary.json and, when given, the environment in its manifest. */
  const runWith = (summary: unknown, environment?: string) => {
    const dir = join(root, `run-${count++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "summary.json"), JSON.stringify(summary, null, 2));
    if (environment)
      writeFileSync(join(dir, "manifest.json"), JSON.stringify({ environment: { name: environment, version: "1" } }));
    return dir;
  };

  const hotpotEpisodes = [
    fakeRecord("a", { em: 1, f1: 1, usd: 0.002, searches: ["x", "y"] }),
    fakeRecord("b", { em: 0, f1: 0.5, usd: 0.004, end: "budget", searches: [] }),
  ];
  const gsm8kEpisodes = [1, 0, 1, 1].map((c, i) =>
    fakeRecord(`g${i}`, { metrics: { correct: c }, searches: [], usd: 0, end: c ? "answer" : "no_action" }),
  );
  const ctx = { planned: 4, seconds: 12.4, status: "done" as const, split: "val" as const, model: "m" };

  it("summarize writes format 2 with the mean of every metric the environment declares", () => {
    const hot = summarize(hotpotEpisodes, { ...ctx, metrics: HOTPOTQA.metrics });
    assert.equal(hot.format, SUMMARY_FORMAT);
    assert.deepEqual(hot.metrics, { em: 0.5, f1: 0.75 });
    assert.deepEqual(Object.keys(hot).slice(0, 5), ["format", "n", "planned", "metrics", "searches_per_q"]);
    const gsm = summarize(gsm8kEpisodes, { ...ctx, metrics: GSM8K.metrics });
    assert.deepEqual(gsm.metrics, { correct: 0.75 });
  });

  it("a format-1 HotpotQA summary (no environment in the manifest) reads back with the same numbers", () => {
    const old = formatOneSummary({ n: 2, planned: 4, em: 0.5, f1: 0.75, searches_per_q: 1, answered: 0.5 });
    const s = readSummary(runWith(old), environmentMetrics)!;
    const { em: _em, f1: _f1, ...rest } = old;
    assert.deepEqual(s, { format: SUMMARY_FORMAT, ...rest, metrics: { em: 0.5, f1: 0.75 } });
    assert.deepEqual(Object.keys(s).slice(0, 5), ["format", "n", "planned", "metrics", "searches_per_q"]);
    // The closing line is the one the fresh summary of the same episodes prints.
    const fresh = summarize(hotpotEpisodes, { ...ctx, seconds: 7, metrics: HOTPOTQA.metrics });
    const line = "run: EM 0.500  F1 0.750  searches 1.00  answered 50%  $0.0010/q  (total $0.00, 7s)";
    assert.equal(finalLine("run", s, HOTPOTQA), line);
    assert.equal(finalLine("run", s), line, "without an environment: the slots' own labels");
    assert.equal(finalLine("run", { ...fresh, usd_per_q: s.usd_per_q, usd_total: s.usd_total }, HOTPOTQA), line);
  });

  it("a format-1 GSM8K summary (both slots its accuracy) reads back as its declared `correct`", () => {
    const old = formatOneSummary({ n: 4, em: 0.75, f1: 0.75, answered: 0.75, usd_per_q: 0 });
    for (const env of [GSM8K.name, GSM8K_WORLD_NAME]) {
      const s = readSummary(runWith(old, env), environmentMetrics)!;
      assert.deepEqual(s.metrics, { correct: 0.75 }, env);
      assert.equal(s.format, SUMMARY_FORMAT);
      assert.equal(s.n, 4);
      assert.equal(finalLine("g", s, GSM8K), "g: accuracy 0.750  answered 75%  $0.0000/q  (total $0.00, 7s)");
      const fresh = summarize(gsm8kEpisodes, { ...ctx, seconds: 7, metrics: GSM8K.metrics });
      assert.equal(finalLine("g", fresh, GSM8K), finalLine("g", s, GSM8K));
    }
  });

  it("an environment with tools and one metric: its metric once, its tool calls by its own label or as tool calls", () => {
    const s = { ...summarize(gsm8kEpisodes, { ...ctx, seconds: 7, metrics: GSM8K.metrics }), searches_per_q: 1 };
    const tools = [{ name: "calc" }];
    const tail = "answered 75%  $0.0000/q  (total $0.00, 7s)";
    assert.equal(finalLine("c", s, { metrics: GSM8K.metrics, tools }), `c: accuracy 0.750  tool calls 1.00  ${tail}`);
    assert.equal(
      finalLine("c", s, { metrics: GSM8K.metrics, tools, toolCallsLabel: "sums" }),
      `c: accuracy 0.750  sums 1.00  ${tail}`,
    );
  });

  it("a format-1 summary of an environment this build does not know keeps the slots' names", () => {
    const s = readSummary(runWith(formatOneSummary({ n: 1, em: 0, f1: 0.4 }), "mystery"), environmentMetrics)!;
    assert.deepEqual(s.metrics, { em: 0, f1: 0.4 });
  });

  it("a format-2 summary reads as it is; a newer format or one without metrics is refused naming the file", () => {
    const fresh = summarize(hotpotEpisodes, { ...ctx, metrics: HOTPOTQA.metrics });
    assert.deepEqual(readSummary(runWith(fresh), environmentMetrics), fresh);
    assert.throws(
      () => readSummary(runWith({ ...fresh, format: SUMMARY_FORMAT + 1 }), environmentMetrics),
      (e: unknown) =>
        e instanceof FileFormatError && /summary\.json/.test(e.message) && /update Agent Lab/.test(e.message),
    );
    const { metrics: _m, ...noMetrics } = fresh;
    assert.throws(() => readSummary(runWith(noMetrics), environmentMetrics), /no "metrics" object/);
    assert.throws(() => readSummary(runWith([1]), environmentMetrics), /expected a JSON object/);
  });

  it("readSummaryHead reads what every format has alike, with no declarations", () => {
    const old = formatOneSummary({ n: 3, em: 0, f1: 0, seconds: 42, status: "interrupted" });
    const fresh = summarize(hotpotEpisodes, { ...ctx, metrics: HOTPOTQA.metrics });
    assert.equal(readSummaryHead(runWith(old, GSM8K.name))!.seconds, 42);
    assert.equal(readSummaryHead(runWith(old))!.status, "interrupted");
    assert.equal(readSummaryHead(runWith(fresh))!.usd_total, fresh.usd_total);
    assert.equal(readSummaryHead(join(root, "absent")), undefined);
  });
});
