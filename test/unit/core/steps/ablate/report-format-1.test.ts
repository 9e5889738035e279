/**
 * Ablation reports written before role keys (format 1: numbers keyed `f1` and `em`, no metric
 * declarations) read back through the one reader in today's shape with the same numbers, and
 * print exactly the table and report the build that wrote them printed. The files in format-1/
 * were made by that build from the runs in format-1-runs.ts.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import {
  ABLATION_FORMAT,
  ablate,
  renderAblationTable,
  renderMarkdownReport,
  type AblationInput,
} from "../../../../../src/core/steps/ablate";
import { normaliseAblationReport, readAblationReport } from "../../../../../src/core/steps/ablate/report-read";
import { FORMAT_1_CREATED, FORMAT_1_RESAMPLES, oneMetricRuns, twoMetricRuns } from "./format-1-runs";

const DIR = join(__dirname, "format-1");
const fixture = (name: string) => readFileSync(join(DIR, name), "utf8");

const CASES: { env: string; runs: () => AblationInput[]; labels: { primary: string; binary: string } }[] = [
  { env: "hotpotqa", runs: twoMetricRuns, labels: { primary: "F1", binary: "EM" } },
  {
    env: "gsm8k",
    runs: () => oneMetricRuns({ name: "gsm8k", version: "1" }),
    labels: { primary: "accuracy", binary: "accuracy" },
  },
];

describe("ablate: format-1 report files read back", () => {
  for (const c of CASES) {
    const file = join(DIR, `${c.env}.ablation.json`);

    it(`${c.env}: the file is format 1 with the v1 slots (the fixture is what it claims)`, () => {
      const raw = JSON.parse(fixture(`${c.env}.ablation.json`)) as { format: number; runs: object[] };
      assert.equal(raw.format, 1);
      assert.ok("f1" in raw.runs[0] && "em" in raw.runs[0] && !("primary" in raw.runs[0]));
    });

    it(`${c.env}: reads as today's report with the numbers ablate computes from the same runs`, () => {
      const read = readAblationReport(file);
      assert.equal(read.format, ABLATION_FORMAT);
      assert.deepEqual([read.metrics.primary.label, read.metrics.binary.label], [c.labels.primary, c.labels.binary]);
      const fresh = ablate(c.runs(), { resamples: FORMAT_1_RESAMPLES, seed: 3, now: FORMAT_1_CREATED });
      // As a file holds it (JSON has no undefined).
      assert.deepEqual(read, JSON.parse(JSON.stringify(fresh)));
    });

    it(`${c.env}: prints the same table and report as the build that wrote it`, () => {
      const read = readAblationReport(file);
      assert.equal(renderAblationTable(read), fixture(`${c.env}.table.txt`));
      const labels = read.runs.map((r) => r.name.toUpperCase());
      assert.equal(renderMarkdownReport(read, { labels }), fixture(`${c.env}.report.md`));
    });
  }

  it("a format-1 report that names no environment is the implied environment's", () => {
    const raw = JSON.parse(fixture("hotpotqa.ablation.json")) as Record<string, unknown>;
    delete raw.environment;
    const read = normaliseAblationReport(raw, "old.json");
    assert.deepEqual(read.environment, readAblationReport(join(DIR, "hotpotqa.ablation.json")).environment);
    assert.equal(renderAblationTable(read), fixture("hotpotqa.table.txt"));
  });

  it("today's report reads back unchanged; another kind or an unknown format is a one-line FileFormatError", () => {
    const report = ablate(twoMetricRuns(), { resamples: 200, now: FORMAT_1_CREATED });
    const dir = mkdtempSync(join(tmpdir(), "ablation-read-"));
    try {
      const file = join(dir, "ablation.json");
      writeFileSync(file, JSON.stringify(report));
      assert.deepEqual(readAblationReport(file), JSON.parse(JSON.stringify(report)));
      writeFileSync(file, JSON.stringify({ ...report, format: 99 }));
      assert.throws(
        () => readAblationReport(file),
        (e: Error) => e instanceof FileFormatError && /format 99 is not one this build reads/.test(e.message),
      );
      writeFileSync(file, JSON.stringify({ kind: "agent-lab.summary" }));
      assert.throws(() => readAblationReport(file), FileFormatError);
      writeFileSync(file, "{");
      assert.throws(() => readAblationReport(file), FileFormatError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
