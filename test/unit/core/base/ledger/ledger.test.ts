import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PRICES } from "../../../../../src/core/base/config";
import { UserError } from "../../../../../src/core/base/errors";
import {
  BudgetExceededError,
  budgetLeftUsd,
  CostLedger,
  costUsd,
  estimateEpisodesUsd,
  estimateRlStepUsd,
  estimateSftUsd,
  EpisodeSizeTracker,
  ledgerPath,
  overBudget,
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

// Mutation-testing gaps (issue 31): the cap's edges, the reservation's bookkeeping and the line's optional fields.
describe("ledger/cap edges", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-ledger-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("overBudget: a float sum of exactly the cap passes, a cent over does not, and already over the cap is over", () => {
    assert.ok(0.1 + 0.2 > 0.3, "the float sum this tolerance is for");
    assert.equal(overBudget(0.3, 0.1, 0.2), false);
    assert.equal(overBudget(0.3, 0.1, 0.21), true);
    assert.equal(overBudget(1, 1.5, 0), true, "over the cap with nothing more to spend");
    assert.equal(overBudget(1, 1.5, -1), true, "a negative estimate does not bring the total back under");
    assert.equal(overBudget(1, 1, 0), false, "exactly at the cap");
    assert.equal(overBudget(0, 1e9, 1e9), false, "0 is no cap");
    assert.equal(overBudget(1, 1 + 1e-12, 0), false, "the tolerance itself is still within the cap");
  });

  it("budgetLeftUsd: what is left of a cap, never 0 (which would mean no cap), Infinity without one", () => {
    assert.ok(Math.abs(budgetLeftUsd(1, 0.4) - 0.6) < 1e-12);
    assert.equal(budgetLeftUsd(1, 2), 1e-9);
    assert.equal(budgetLeftUsd(1, 1), 1e-9);
    assert.equal(budgetLeftUsd(0, 5), Infinity);
  });

  it("a negative or non-numeric budget is refused with a UserError naming it", () => {
    for (const budgetUsd of [-1, Number.NaN]) {
      assert.throws(
        () => CostLedger.open(dir, { prices: QWEN, budgetUsd }),
        (e: Error) => e instanceof UserError && e.message === `budget must be a number ≥ 0 USD, got ${budgetUsd}`,
      );
    }
    assert.equal(CostLedger.open(dir, { prices: QWEN }).hasCap, false);
    assert.equal(CostLedger.open(dir, { prices: QWEN, budgetUsd: 0.5 }).hasCap, true);
  });

  it("remainingUsd is the cap less what is spent and what is reserved", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 2 });
    ledger.record({ kind: "eval", usd: 0.5 });
    ledger.reserve(0.25);
    assert.ok(Math.abs(ledger.remainingUsd - 1.25) < 1e-12);
  });

  it("a batch that costs nothing is never refused, even over the cap", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 1 });
    ledger.record({ kind: "eval", usd: 1.5 });
    ledger.ensureCanSpend(0);
    assert.throws(() => ledger.ensureCanSpend(0.01), BudgetExceededError);
  });

  it("the refusal names the cap, what is spent or in flight, and the estimate", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 1 });
    ledger.record({ kind: "eval", usd: 0.5 });
    ledger.reserve(0.25);
    assert.throws(
      () => ledger.reserve(0.3, "the next step"),
      (e: Error) =>
        e instanceof BudgetExceededError &&
        e.name === "BudgetExceededError" &&
        e.capUsd === 1 &&
        e.spentUsd === 0.75 &&
        e.estimateUsd === 0.3 &&
        e.message ===
          "budget cap $1.00 reached: $0.7500 spent or in flight, the next step ≈ $0.3000 would go over it. " +
            'What is done is kept; raise --budget (or "budgetUsd" in agent-lab.json) to continue.',
    );
    assert.throws(
      () => ledger.ensureCanSpend(0.3),
      (e: Error) => e instanceof BudgetExceededError && e.message.includes("the next batch ≈ $0.3000"),
    );
    assert.ok(Math.abs(ledger.reservedUsd - 0.25) < 1e-12, "a refused reservation holds nothing");
  });

  it("a negative estimate reserves nothing, and releasing never takes the reserved total below 0", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 1 });
    const none = ledger.reserve(-0.5);
    assert.equal(none.usd, 0);
    assert.equal(ledger.reservedUsd, 0);
    const a = ledger.reserve(0.3);
    assert.equal(a.usd, 0.3);
    none.release();
    a.release();
    assert.equal(ledger.reservedUsd, 0);
  });

  it("a line has estimate_usd only when it released a reservation, and label only when given", () => {
    const ledger = CostLedger.open(dir, { prices: QWEN, budgetUsd: 1 });
    const plain = ledger.record({ kind: "eval", usd: 0.1 });
    assert.equal("estimate_usd" in plain, false);
    assert.equal("label" in plain, false);
    const r = ledger.reserve(0.2);
    const withBoth = ledger.record({ kind: "sample", usd: 0.15, reservation: r, label: "" });
    assert.equal(withBoth.estimate_usd, 0.2);
    assert.equal(withBoth.label, "");
    assert.equal(ledger.reservedUsd, 0, "recording releases the reservation");
    assert.deepEqual(
      readLedger(dir).map((l) => Object.keys(l).sort()),
      [
        ["cumulative_usd", "kind", "time", "tokens", "usd"],
        ["cumulative_usd", "estimate_usd", "kind", "label", "time", "tokens", "usd"],
      ],
    );
  });

  it("prices each token kind at its own rate, a missing count as 0", () => {
    assert.ok(Math.abs(costUsd(QWEN, { prefill: 1e6 }) - 0.33) < 1e-12);
    assert.ok(Math.abs(costUsd(QWEN, { sampled: 1e6 }) - 1.005) < 1e-12);
    assert.ok(Math.abs(costUsd(QWEN, { trained: 1e6 }) - 0.737) < 1e-12);
    assert.equal(costUsd(QWEN, {}), 0);
  });

  it("reading a ledger skips a torn last line (a killed writer's), without repairing the file", () => {
    writeFileSync(ledgerPath(dir), JSON.stringify({ kind: "eval", usd: 0.5 }) + '\n{"kind":"ev');
    assert.deepEqual(
      readLedger(dir).map((l) => l.usd),
      [0.5],
    );
  });

  it("a reopened ledger counts a line whose usd is not a number as $0; no ledger reads as []", () => {
    assert.deepEqual(readLedger(join(dir, "none")), []);
    writeFileSync(
      ledgerPath(dir),
      JSON.stringify({ kind: "eval", usd: "x" }) + "\n" + JSON.stringify({ usd: 0.5 }) + "\n",
    );
    assert.equal(CostLedger.open(dir, { prices: QWEN }).totalUsd, 0.5);
  });
});

describe("ledger/workspace spend edges", () => {
  let runs: string;
  beforeEach(() => {
    runs = mkdtempSync(join(tmpdir(), "agent-lab-spend-"));
  });
  afterEach(() => rmSync(runs, { recursive: true, force: true }));

  const line = (time: string, kind: string, usd: unknown, tokens?: object) =>
    JSON.stringify({ time, kind, usd, ...(tokens ? { tokens } : {}) }) + "\n";

  it("counts a line at exactly `since`, keeps the newest time as last, and adds each kind's dollars", () => {
    mkdirSync(join(runs, "r"));
    writeFileSync(
      ledgerPath(join(runs, "r")),
      line("2026-05-02T00:00:00.000Z", "eval", 0.5, { prefill: 3, sampled: 2, trained: 0 }) +
        line("2026-05-01T00:00:00.000Z", "eval", 0.25) + // no tokens field: counts as none
        line("2026-04-30T23:59:59.999Z", "train", 9) +
        line("2026-05-01T12:00:00.000Z", "train", "not a number"),
    );
    const spend = workspaceSpend(runs, { since: new Date("2026-05-01T00:00:00.000Z") });
    assert.equal(spend.since, "2026-05-01T00:00:00.000Z");
    assert.equal(spend.runs.length, 1);
    const [r] = spend.runs;
    assert.equal(r.usd, 0.75);
    assert.deepEqual(r.byKind, { eval: 0.75, train: 0 });
    assert.deepEqual(r.tokens, { prefill: 3, sampled: 2, trained: 0 });
    assert.equal(r.last, "2026-05-02T00:00:00.000Z");
    assert.equal("since" in workspaceSpend(runs), false, "no bound, no since field");
  });

  it("leaves out runs with $0 and no tokens, keeps $0 runs that used tokens, and skips files and summaries without usd_total", () => {
    for (const name of ["free", "idle", "legacy-no-usd", "legacy-old"]) mkdirSync(join(runs, name));
    writeFileSync(join(runs, "a-file"), "not a run");
    writeFileSync(
      ledgerPath(join(runs, "free")),
      line("2026-05-01T00:00:00.000Z", "eval", 0, { prefill: 0, sampled: 0, trained: 7 }),
    );
    writeFileSync(
      ledgerPath(join(runs, "idle")),
      line("2026-05-01T00:00:00.000Z", "eval", 0, { prefill: 0, sampled: 0, trained: 0 }),
    );
    writeFileSync(join(runs, "legacy-no-usd", "summary.json"), JSON.stringify({ updated: "2026-05-01T00:00:00.000Z" }));
    writeFileSync(
      join(runs, "legacy-old", "summary.json"),
      JSON.stringify({ usd_total: 0.3, updated: "2026-04-01T00:00:00.000Z" }),
    );
    assert.deepEqual(
      workspaceSpend(runs).runs.map((r) => [r.name, r.usd, r.last]),
      [
        ["free", 0, "2026-05-01T00:00:00.000Z"],
        ["legacy-old", 0.3, "2026-04-01T00:00:00.000Z"],
      ],
    );
    assert.deepEqual(
      workspaceSpend(runs, { since: new Date("2026-04-01T00:00:00.000Z") }).runs.map((r) => r.name),
      ["free", "legacy-old"],
      "a summary updated at exactly the bound counts",
    );
    assert.deepEqual(
      workspaceSpend(runs, { since: new Date("2026-04-01T00:00:00.001Z") }).runs.map((r) => r.name),
      ["free"],
    );
  });

  it("lists runs by name, keeps the newest time as last whatever the line order, and counts tokens of any kind", () => {
    // Created in reverse order: whatever order the file system lists them in, the result is by name.
    const names = Array.from({ length: 12 }, (_, i) => `run-${String(11 - i).padStart(2, "0")}`);
    for (const name of names) {
      mkdirSync(join(runs, name));
      writeFileSync(ledgerPath(join(runs, name)), line("2026-05-01T00:00:00.000Z", "eval", 0.1));
    }
    writeFileSync(
      ledgerPath(join(runs, "run-05")),
      line("2026-05-01T00:00:00.000Z", "eval", 0.1) + line("2026-05-03T00:00:00.000Z", "eval", 0.1),
    );
    // $0, and as many sampled tokens as prefill ones: still a run that used tokens
    mkdirSync(join(runs, "a-run"));
    writeFileSync(
      ledgerPath(join(runs, "a-run")),
      line("2026-05-01T00:00:00.000Z", "sample", 0, { prefill: 5, sampled: 5, trained: 0 }),
    );
    const spend = workspaceSpend(runs);
    assert.deepEqual(
      spend.runs.map((r) => r.name),
      ["a-run", ...[...names].sort()],
    );
    assert.equal(spend.runs.find((r) => r.name === "run-05")?.last, "2026-05-03T00:00:00.000Z");
  });

  it("a summary-only run counts its usd_total as eval spend with no tokens; a usd_total that is not a number is left out", () => {
    for (const name of ["legacy", "legacy-text"]) mkdirSync(join(runs, name));
    writeFileSync(
      join(runs, "legacy", "summary.json"),
      JSON.stringify({ usd_total: 0.4, updated: "2026-05-01T00:00:00.000Z" }),
    );
    writeFileSync(
      join(runs, "legacy-text", "summary.json"),
      JSON.stringify({ usd_total: "0.4", updated: "2026-05-01T00:00:00.000Z" }),
    );
    const [only, ...rest] = workspaceSpend(runs).runs;
    assert.equal(rest.length, 0);
    assert.deepEqual(only, {
      name: "legacy",
      usd: 0.4,
      byKind: { eval: 0.4 },
      tokens: { prefill: 0, sampled: 0, trained: 0 },
      source: "summary",
      last: "2026-05-01T00:00:00.000Z",
    });
  });

  it("estimates: an RL step samples every episode and trains on each one's full sequence", () => {
    const size = { prefill: 1000, generated: 100 };
    const expected = (10 * (1000 * 0.33 + 100 * 1.005) + 10 * 500 * 0.737) / 1e6;
    assert.ok(Math.abs(estimateRlStepUsd(QWEN, 10, size, 500) - expected) < 1e-12);
    assert.ok(Math.abs(estimateEpisodesUsd(QWEN, 3, size) - (3 * (1000 * 0.33 + 100 * 1.005)) / 1e6) < 1e-12);
    const tracker = new EpisodeSizeTracker();
    const mean = tracker.mean;
    mean.prefill = 1;
    assert.deepEqual(tracker.mean, TYPICAL_EPISODE, "the typical episode is handed out as a copy");
  });
});
