import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  appendEpisode,
  episodesPath,
  readEpisodes,
  listRuns,
  readRun,
  readSummary,
  readSummaryHead,
  repairTornTail,
} from "../../../../../src/core/base/runs/run-files";
import { UNKNOWN_ENV_METRICS } from "../../../../../src/core/base/runs/metrics";
import { writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";
import { summarize, finalLine, SUMMARY_FORMAT } from "../../../../../src/core/base/runs/summary";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { fakeRecord } from "./fakes";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

describe("runs/run-files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-run-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("appends episodes one line each and reads them back in order", () => {
    appendEpisode(dir, fakeRecord("a"));
    appendEpisode(dir, fakeRecord("b", { f1: 0.5 }));
    const text = readFileSync(episodesPath(dir), "utf8");
    assert.equal(text.split("\n").length, 3, "two lines plus the trailing newline");
    assert.deepEqual(
      readEpisodes(dir, environmentMetrics).map((e) => [e.id, e.metrics.f1]),
      [
        ["a", 1],
        ["b", 0.5],
      ],
    );
  });

  it("skips a torn last line, and repairTornTail cuts it so the next append is clean", () => {
    appendEpisode(dir, fakeRecord("a"));
    appendFileSync(episodesPath(dir), '{"id":"b","question":"half a li');
    assert.deepEqual(
      readEpisodes(dir, environmentMetrics).map((e) => e.id),
      ["a"],
    );
    assert.ok(repairTornTail(episodesPath(dir)) > 0);
    appendEpisode(dir, fakeRecord("c"));
    assert.deepEqual(
      readEpisodes(dir, environmentMetrics).map((e) => e.id),
      ["a", "c"],
    );
    assert.equal(repairTornTail(episodesPath(dir)), 0, "a clean file is left alone");
  });

  it("names file and line for a broken line that is not the tail", () => {
    appendEpisode(dir, fakeRecord("a"));
    appendFileSync(episodesPath(dir), "{oops\n");
    appendEpisode(dir, fakeRecord("b"));
    assert.throws(
      () => readEpisodes(dir, environmentMetrics),
      (e: Error) => e instanceof FileFormatError && /episodes\.jsonl:2/.test(e.message),
    );
  });

  it("keeps the first record when an id repeats", () => {
    appendEpisode(dir, fakeRecord("a", { f1: 0.25 }));
    appendEpisode(dir, fakeRecord("a", { f1: 0.75 }));
    assert.deepEqual(
      readEpisodes(dir, environmentMetrics).map((e) => e.metrics.f1),
      [0.25],
    );
  });

  it("readRun returns manifest and episodes, readSummary the summary, and names a bad summary.json", () => {
    appendEpisode(dir, fakeRecord("a"));
    writeJsonAtomic(join(dir, "summary.json"), { n: 1 });
    const run = readRun(dir, environmentMetrics);
    assert.equal(run.episodes.length, 1);
    assert.equal(run.manifest, undefined);
    assert.equal(readSummary(dir, () => UNKNOWN_ENV_METRICS)?.n, 1);
    writeFileSync(join(dir, "summary.json"), '{\n  "n": 1,\n  oops\n}');
    assert.throws(() => readSummary(dir, () => UNKNOWN_ENV_METRICS), /summary\.json:3/);
    assert.throws(() => readSummaryHead(dir), /summary\.json:3/);
    assert.throws(() => readRun(join(dir, "nope"), environmentMetrics), /not a run folder/);
  });

  it("listRuns finds run folders (manifest or episodes) and ignores other things", () => {
    const runs = join(dir, "runs");
    for (const d of ["a", "b", "empty"]) mkdirSync(join(runs, d), { recursive: true });
    appendEpisode(join(runs, "b"), fakeRecord("x"));
    writeJsonAtomic(join(runs, "a", "manifest.json"), {});
    writeFileSync(join(runs, "notes.txt"), "x");
    assert.deepEqual(listRuns(runs), ["a", "b"]);
    assert.deepEqual(listRuns(join(dir, "none")), []);
  });

  it("summarize computes the recipe's numbers and the closing line", () => {
    const eps = [
      fakeRecord("a", { em: 1, f1: 1, usd: 0.002, searches: ["x", "y"] }),
      fakeRecord("b", { em: 0, f1: 0.5, usd: 0.004, end: "budget", searches: [] }),
    ];
    const s = summarize(eps, { planned: 4, seconds: 12.4, status: "running", split: "val", model: "m" });
    assert.equal(s.n, 2);
    assert.equal(s.planned, 4);
    assert.equal(s.format, SUMMARY_FORMAT);
    assert.deepEqual(s.metrics, { em: 0.5, f1: 0.75 });
    assert.equal(s.searches_per_q, 1);
    assert.equal(s.answered, 0.5);
    assert.deepEqual(s.ends, { answer: 1, budget: 1 });
    assert.ok(Math.abs(s.usd_total - 0.006) < 1e-12);
    assert.ok(Math.abs(s.usd_per_q - 0.003) < 1e-12);
    assert.equal(s.seconds, 12);
    assert.equal(
      finalLine("base", s),
      "base: EM 0.500  F1 0.750  searches 1.00  answered 50%  $0.0030/q  (total $0.01, 12s)",
    );
  });
});
