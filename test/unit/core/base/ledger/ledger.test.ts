import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PRICES } from "../../../../../src/core/base/config";
import { UserError } from "../../../../../src/core/base/errors";
import {
  BudgetExceededError,
  CostLedger,
  costUsd,
  estimateEpisodesUsd,
  estimateRlStepUsd,
  estimateSftUsd,
  EpisodeSizeTracker,
  ledgerPath,
  readLedger,
  startOfToday,
  TYPICAL_EPISODE,
  workspaceSpend,
} from "../../../../../src/core/base/ledger";

const QWEN = DEFAULT_PRICES["Qwen/Qwen3.5-4B"];

describe("ledger/cost ledger", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-ledger-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("prices tokens from the table: prefill, sampled and trained per 1M tokens", () => {
    // 1M of each at $0.33 + $1.005 + $0.737.
    assert.ok(Math.abs(costUsd(QWEN, { prefill: 1e6, sampled: 1e6, trained: 1e6 }) - 2.072) < 1e-12);
    assert.equal(costUsd(null, { prefill: 1e6, sampled: 1e6, trained: 1e6 }), 0);
  });

  it("appends one line per batch with tokens, usd and the running total", () => {
    const ledger = CostLedger.open(join(dir, "run"), { prices: QWEN });
    ledger.record({ kind: "eval", prefill: 2000, sampled: 80, label: "episode a" });
    ledger.record({ kind: "train", trained: 10_000 });
    const lines = readFileSync(ledgerPath(join(dir, "run")), "utf8")
      .trim()
      .split("\n");
    assert.equal(lines.length, 2);
    const [a, b] = readLedger(join(dir, "run"));
    assert.equal(a.kind, "eval");
    assert.deepEqual(a.tokens, { prefill: 2000, sampled: 80, trained: 0 });
    assert.ok(Math.abs(a.usd - (2000 * 0.33 + 80 * 1.005) / 1e6) < 1e-15);
    assert.equal(a.label, "episode a");
    assert.ok(Math.abs(b.cumulative_usd - (a.usd + (10_000 * 0.737) / 1e6)) < 1e-15);
    assert.ok(Math.abs(ledger.totalUsd - b.cumulative_usd) < 1e-15);
    assert.ok(!Number.isNaN(Date.parse(a.time)));
  });

  it("a free source records its tokens at $0", () => {
    const ledger = CostLedger.open(dir, { prices: null, budgetUsd: 0.01 });
    const e = ledger.record({ kind: "sample", prefill: 5e6, sampled: 1e6 });
    assert.equal(e.usd, 0);
    assert.deepEqual(e.tokens, { prefill: 5e6, sampled: 1e6, trained: 0 });
    ledger.ensureCanSpend(ledger.costOf({ prefill: 1e9 }));
  });

  it("a reopened ledger (resume) continues the total, after cutting a torn last line", () => {
    const first = CostLedger.open(dir, { prices: QWEN });
    first.record({ kind: "eval", usd: 0.25 });
    appendFileSync(ledgerPath(dir), '{"time":"2026-11-01T00:00:00Z","kind":"ev');
    const again = CostLedger.open(dir, { prices: QWEN });
    assert.equal(again.totalUsd, 0.25);
    const e = again.record({ kind: "eval", usd: 0.5 });
    assert.equal(e.cumulative_usd, 0.75);
    assert.deepEqual(
      readLedger(dir).map((l) => l.usd),
      [0.25, 0.5],
    );
  });

  it("ensureCanSpend refuses before a batch would take the total over the cap, with a UserError", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 1 });
    ledger.record({ kind: "eval", usd: 0.7 });
    ledger.ensureCanSpend(0.3); // exactly at the cap is allowed
    assert.throws(
      () => ledger.ensureCanSpend(0.31, "the next episode"),
      (e: Error) =>
        e instanceof BudgetExceededError &&
        e instanceof UserError &&
        /\$1\.00/.test(e.message) &&
        /the next episode/.test(e.message) &&
        /--budget/.test(e.message),
    );
    assert.equal(ledger.totalUsd, 0.7, "a refusal spends nothing");
  });

  it("no cap (0) never refuses", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 0 });
    ledger.record({ kind: "eval", usd: 1000 });
    ledger.ensureCanSpend(1e9);
    assert.equal(ledger.remainingUsd, Infinity);
  });

  it("reservations count batches in flight, so concurrent batches cannot overshoot together", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 1 });
    const a = ledger.reserve(0.4);
    const b = ledger.reserve(0.4);
    assert.throws(() => ledger.reserve(0.4), BudgetExceededError);
    const line = ledger.record({ kind: "eval", usd: 0.1, reservation: a }); // cheaper than estimated: frees the rest
    assert.equal(line.estimate_usd, 0.4, "the line keeps the estimate it was let through with");
    assert.ok(Math.abs(ledger.remainingUsd - 0.5) < 1e-12);
    ledger.reserve(0.4);
    b.release();
    b.release(); // idempotent
    assert.ok(Math.abs(ledger.reservedUsd - 0.4) < 1e-12);
  });

  it("estimates follow the recipe: ~2,000 prefill + ~80 generated per episode, SFT tokens × epochs × train price", () => {
    // The recipe's own figure: one episode ≈ $0.0007.
    assert.equal(estimateEpisodesUsd(QWEN, 1).toFixed(4), "0.0007");
    assert.ok(Math.abs(estimateEpisodesUsd(QWEN, 500) - (500 * (2000 * 0.33 + 80 * 1.005)) / 1e6) < 1e-12);
    assert.ok(Math.abs(estimateSftUsd(QWEN, 2_000_000, 3) - 6 * 0.737) < 1e-12);
    assert.ok(estimateRlStepUsd(QWEN, 256) > estimateEpisodesUsd(QWEN, 256));
    assert.equal(estimateEpisodesUsd(null, 1e6), 0);
    const tracker = new EpisodeSizeTracker();
    assert.deepEqual(tracker.mean, TYPICAL_EPISODE);
    tracker.add({ prefill: 1000, generated: 40 });
    tracker.add({ prefill: 3000, generated: 60 });
    assert.deepEqual(tracker.mean, { prefill: 2000, generated: 50 });
  });
});

describe("ledger/workspace spend", () => {
  let runs: string;
  beforeEach(() => {
    runs = mkdtempSync(join(tmpdir(), "agent-lab-spend-"));
  });
  afterEach(() => rmSync(runs, { recursive: true, force: true }));

  it("sums every run's ledger, counts ledger-less eval runs from summary.json, and filters by time", () => {
    const train = join(runs, "sft-1");
    mkdirSync(train);
    const old = {
      time: "2026-01-01T10:00:00.000Z",
      kind: "train",
      tokens: { prefill: 0, sampled: 0, trained: 100 },
      usd: 1.5,
      cumulative_usd: 1.5,
    };
    const recent = {
      time: "2026-06-01T10:00:00.000Z",
      kind: "sample",
      tokens: { prefill: 10, sampled: 5, trained: 0 },
      usd: 0.25,
      cumulative_usd: 1.75,
    };
    writeFileSync(ledgerPath(train), JSON.stringify(old) + "\n" + JSON.stringify(recent) + "\n");
    const legacy = join(runs, "base-val");
    mkdirSync(legacy);
    writeFileSync(
      join(legacy, "summary.json"),
      JSON.stringify({ usd_total: 0.4, updated: "2026-03-01T00:00:00.000Z" }),
    );
    mkdirSync(join(runs, "empty"));

    const all = workspaceSpend(runs);
    assert.deepEqual(
      all.runs.map((r) => [r.name, r.usd, r.source]),
      [
        ["base-val", 0.4, "summary"],
        ["sft-1", 1.75, "ledger"],
      ],
    );
    assert.ok(Math.abs(all.totalUsd - 2.15) < 1e-12);
    assert.deepEqual(all.runs[1].byKind, { train: 1.5, sample: 0.25 });
    assert.deepEqual(all.runs[1].tokens, { prefill: 10, sampled: 5, trained: 100 });

    const since = workspaceSpend(runs, { since: new Date("2026-02-15T00:00:00Z") });
    assert.deepEqual(
      since.runs.map((r) => [r.name, r.usd]),
      [
        ["base-val", 0.4],
        ["sft-1", 0.25],
      ],
    );
    assert.equal(workspaceSpend(join(runs, "missing")).totalUsd, 0);
  });

  it("startOfToday is local midnight of the given day", () => {
    const d = startOfToday(new Date(2026, 10, 29, 15, 4, 3));
    assert.deepEqual([d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes()], [2026, 10, 29, 0, 0]);
  });
});
