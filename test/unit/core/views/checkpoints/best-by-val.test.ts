/**
 * The checkpoint-keeping rule and the rows' paired Δ on hand-built numbers: intervals that only
 * touch still overlap, an earlier overlapping checkpoint is kept over the top one, the note names
 * every case; the Δ pairs only the questions both evals answered and draws as a two-run Compare.
 */
import assert from "node:assert/strict";
import { bootstrapMeans, percentileInterval } from "../../../../../src/core/base/stats/bootstrap";
import { SHOWN_INTERVAL } from "../../../../../src/core/base/stats/shown-interval";
import { signFlipTest } from "../../../../../src/core/base/stats/significance";
import { BEST_RULE, bestByVal } from "../../../../../src/core/views/checkpoints/best-by-val";
import { pairedDelta } from "../../../../../src/core/views/checkpoints/paired-delta";

const f2 = (v: number) => v.toFixed(2);
const ck = (name: string, mean: number, lo: number, hi: number) => ({ name, primary: { mean, lo, hi } });

describe("checkpoints: the best checkpoint by val", () => {
  it("states the rule", () => {
    assert.match(BEST_RULE, /^the highest val mean; when other checkpoints' 95% intervals overlap/);
  });

  it("says when a checkpoint is the only one scored", () => {
    const b = bestByVal([ck("e1", 0.5, 0.4, 0.6)], f2);
    assert.deepEqual([b?.best, b?.top, b?.overlapping], ["e1", "e1", []]);
    assert.equal(b?.note, "e1 is the only checkpoint with a val score: 0.50 [0.40, 0.60]");
  });

  it("keeps an earlier checkpoint whose interval only touches the top one's from below", () => {
    const b = bestByVal([ck("e1", 0.4, 0.3, 0.45), ck("e2", 0.5, 0.45, 0.55)], f2);
    assert.deepEqual([b?.best, b?.top, b?.overlapping], ["e1", "e2", ["e1"]]);
    assert.equal(
      b?.note,
      "intervals overlap: e2 has the highest val mean, 0.50 [0.45, 0.55], but e1 overlaps it; the earlier, cheaper e1, 0.40 [0.30, 0.45], is kept",
    );
  });

  it("counts zero-width intervals at the same value as overlapping (two perfect checkpoints)", () => {
    const b = bestByVal([ck("e1", 1, 1, 1), ck("e2", 1, 1, 1), ck("e3", 0.5, 0.4, 0.6)], f2);
    assert.deepEqual([b?.best, b?.top, b?.overlapping], ["e1", "e1", ["e2"]]);
  });

  it("names every overlapping checkpoint, in training order", () => {
    const b = bestByVal([ck("e1", 0.45, 0.35, 0.55), ck("e2", 0.5, 0.4, 0.6), ck("e3", 0.48, 0.38, 0.58)], f2);
    assert.deepEqual([b?.best, b?.top, b?.overlapping], ["e1", "e2", ["e1", "e3"]]);
    assert.equal(
      b?.note,
      "intervals overlap: e2 has the highest val mean, 0.50 [0.40, 0.60], but e1, e3 overlap it; the earlier, cheaper e1, 0.45 [0.35, 0.55], is kept",
    );
  });
});

describe("checkpoints: a row's paired Δ against the baseline eval", () => {
  const { resamples, seed, stream, level } = SHOWN_INTERVAL;

  it("is null when the evals share no question", () => {
    assert.equal(pairedDelta(new Map([["q1", 1]]), new Map([["q2", 1]])), null);
  });

  it("pairs only the shared questions, in id order, and draws as a two-run Compare", () => {
    const ids = Array.from({ length: 12 }, (_, i) => `q${String(i).padStart(2, "0")}`);
    const base = new Map(ids.map((id, i) => [id, i % 3 === 0 ? 1 : 0]));
    base.set("only-in-baseline", 1);
    const run = new Map(ids.map((id, i) => [id, i % 4 === 0 ? 0 : 1]));
    run.set("only-in-run", 0);
    const d = pairedDelta(base, run)!;
    const a = ids.map((id) => base.get(id)!);
    const b = ids.map((id) => run.get(id)!);
    assert.equal(d.n, 12);
    assert.ok(Math.abs(d.delta - (9 - 4) / 12) < 1e-12);
    const [distA, distB] = bootstrapMeans([a, b], { resamples, seed, stream });
    assert.deepEqual(d.ci, percentileInterval(Float64Array.from(distB.map((x, r) => x - distA[r])), level));
    assert.ok(d.ci.lo < d.delta && d.delta < d.ci.hi, "a real interval around Δ");
    const diffs = b.map((x, q) => x - a[q]);
    assert.equal(d.p, signFlipTest(diffs, { resamples, seed, stream: 2 }));
    assert.ok(d.p > 0 && d.p < 1);
  });
});
