import { strict as assert } from "node:assert";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG, mergeConfig } from "../../../src/core/config";
import { UserError } from "../../../src/core/errors";
import { confirmationText, estimateEval, estimateSftData, estimateTrainGrpo, estimateTrainSft } from "../../../src/extension/commands/estimate";
import { describeProgress, formatElapsed, progressFromLine, readFrom, readProgress, redact } from "../../../src/extension/jobs/job-progress";
import type { RunRow } from "../../../src/extension/runs/runs-model";

const config = mergeConfig({});
const model = DEFAULT_CONFIG.model;
const measured = { name: "base", summary: { model, n: 500, usd_per_q: 0.002 } } as unknown as RunRow;

describe("extension: cost estimates before spending", () => {
  it("eval: the recipe's typical episode at the model's prices, or the $/episode measured on an earlier run", () => {
    const typical = (2000 * 0.33 + 80 * 1.005) / 1e6;
    const e = estimateEval(config, model, 7405, []);
    assert.ok(Math.abs(e.usd - 7405 * typical) < 1e-9);
    assert.match(e.basis, /7405 questions × \$0\.0007\/episode for the recipe's typical episode/);
    const m = estimateEval(config, model, 1000, [measured]);
    assert.ok(Math.abs(m.usd - 2) < 1e-9);
    assert.match(m.basis, /measured on base \(500 episodes\)/);
  });

  it("SFT data, SFT training and GRPO scale with their sizes; an unpriced model is refused", () => {
    assert.ok(Math.abs(estimateSftData(config, model, 1500, 4, [measured]).usd - 1500 * 4 * 0.002) < 1e-9);
    assert.ok(Math.abs(estimateTrainSft(config, model, 1000, 3).usd - (1000 * 1000 * 3 * 0.737) / 1e6) < 1e-9);
    const g = estimateTrainGrpo(config, model, 30, [measured]);
    assert.ok(Math.abs(g.usd - (30 * 256 * 0.002 + (30 * 256 * 1000 * 0.737) / 1e6)) < 1e-9);
    assert.throws(() => estimateEval(config, "meta/unknown", 10, []), (e: Error) => e instanceof UserError && /no price for model/.test(e.message));
  });

  it("the confirmation names the estimate and the budget cap", () => {
    const est = { usd: 12.345, basis: "b" };
    assert.match(confirmationText("Evaluate val", est, 20), /about \$12\.35 \(upper bound\)\. b\. The budget cap of \$20\.00 stops the job/);
    assert.match(confirmationText("Evaluate val", est, 0), /No budget cap is set/);
  });
});

describe("extension: job progress and log helpers", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-progress-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads progress lines, summary and ledger spend; describes them", () => {
    assert.deepEqual(progressFromLine("25/250  F1 so far 0.412"), { done: 25, planned: 250 });
    assert.deepEqual(progressFromLine("step 3/30 reward 0.41"), { done: 3, planned: 30 });
    assert.equal(progressFromLine("indexed 3,075 paragraphs"), undefined);
    assert.equal(progressFromLine("40/20 nonsense"), undefined);
    const log = join(dir, "job.log");
    writeFileSync(log, "starting\n10/100  F1 so far 0.300\n\n");
    writeFileSync(join(dir, "summary.json"), JSON.stringify({ n: 0, planned: 100, usd_total: 0 }));
    writeFileSync(join(dir, "ledger.jsonl"), JSON.stringify({ cumulative_usd: 0.25 }) + "\n" + '{"cumulative_usd": 0.3');
    const p = readProgress(dir, log);
    assert.deepEqual(p, { lastLine: "10/100  F1 so far 0.300", done: 10, planned: 100, usd: 0.25 });
    assert.equal(describeProgress(p, 185_000), "10/100 · $0.250 · 3m 05s");
    assert.equal(formatElapsed(3_725_000), "1h 02m");
    assert.equal(formatElapsed(9_000), "9s");
  });

  it("streams a log incrementally, never splitting a UTF-8 character; redacts a secret", () => {
    const log = join(dir, "job.log");
    writeFileSync(log, "first line — ok\n");
    let r = readFrom(log, 0);
    assert.equal(r.text, "first line — ok\n");
    appendFileSync(log, "é".repeat(10) + "\n");
    const small = readFrom(log, r.offset, 7); // 7 bytes = 3.5 characters of one long line
    assert.equal(small.text, "ééé", "whole characters only");
    r = readFrom(log, small.offset);
    assert.equal(r.text, "é".repeat(7) + "\n");
    assert.equal(readFrom(log, r.offset).text, "");
    assert.equal(redact("key tml-abcdef123 here tml-abcdef123", ["tml-abcdef123", undefined]), "key [redacted] here [redacted]");
  });
});
