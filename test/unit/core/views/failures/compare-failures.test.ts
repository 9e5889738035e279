/**
 * Compare's failure-label table (views/failures/compare-failures.ts): counts per run, and the
 * paired change in each label's share on the shared questions, whose interval, McNemar p and Holm
 * adjustment equal a direct computation from the same seeded draws.
 */
import { strict as assert } from "node:assert";
import { Xoshiro128 } from "../../../../../src/core/base/stats/prng";
import { quantileSorted } from "../../../../../src/core/base/stats/bootstrap";
import { holmAdjust, mcnemarExact } from "../../../../../src/core/base/stats/significance";
import type { FailureVerdict } from "../../../../../src/core/harness/failures";
import {
  changeSentence,
  compareFailures,
  renderFailureComparisonMarkdown,
  type LabelledRun,
} from "../../../../../src/core/views/failures/compare-failures";

const LABELS = [
  { name: "answer_too_long", description: "long" },
  { name: "bad_query", description: "query" },
  { name: "misread", description: "read" },
];

/** A run of `n` questions (ids q0…), each labelled by `pick` (undefined: not failed). */
function labelledRun(name: string, n: number, pick: (q: number) => string | undefined, extra = 0): LabelledRun {
  const ids = Array.from({ length: n + extra }, (_, q) => (q < n ? `q${q}` : `${name}-only-${q}`));
  const byId = new Map<string, FailureVerdict>();
  ids.forEach((id, q) => {
    const label = pick(q);
    if (label) byId.set(id, { label, evidence: "" });
  });
  return { name, ids, byId };
}

/** The 95% percentile interval of Δ mean over `resamples` draws of question indices, computed here. */
function directInterval(base: number[], run: number[], resamples: number, seed: number): { lo: number; hi: number } {
  const n = base.length;
  const rng = new Xoshiro128(seed, 100);
  const idx = new Int32Array(n);
  const d: number[] = [];
  for (let r = 0; r < resamples; r++) {
    rng.fillBelow(idx, n);
    let sb = 0;
    let sr = 0;
    for (const i of idx) {
      sb += base[i];
      sr += run[i];
    }
    d.push(sr / n - sb / n);
  }
  d.sort((a, b) => a - b);
  return { lo: quantileSorted(d, 0.025), hi: quantileSorted(d, 0.975) };
}

describe("failure labels: Compare's paired label table", () => {
  let x = 99;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const n = 200;
  const base = Array.from({ length: n }, () => rnd());
  // The baseline answers too long a quarter of the time; the edited prompt mostly fixes that, and misreads a little more.
  const baseline = labelledRun("base", n, (q) =>
    base[q] < 0.25 ? "answer_too_long" : base[q] < 0.45 ? "bad_query" : base[q] < 0.55 ? "misread" : undefined,
  );
  const edited = labelledRun(
    "edit",
    n,
    (q) =>
      base[q] < 0.05
        ? "answer_too_long"
        : base[q] < 0.25
          ? q % 3 === 0
            ? "misread"
            : undefined
          : base[q] < 0.45
            ? "bad_query"
            : base[q] < 0.55
              ? "misread"
              : undefined,
    7,
  );
  const third = labelledRun("third", n, (q) => (q % 5 === 0 ? "bad_query" : undefined));
  const cmp = compareFailures(LABELS, [baseline, edited, third], { resamples: 2000, seed: 3 });

  it("counts each run's labels over all its episodes, and on the shared questions", () => {
    const count = (r: LabelledRun, l: string) => [...r.byId.values()].filter((v) => v.label === l).length;
    assert.equal(cmp.shared, n);
    for (const row of cmp.rows)
      assert.deepEqual(
        row.counts,
        [baseline, edited, third].map((r) => count(r, row.label)),
      );
  });

  it("each interval, McNemar p and Holm adjustment equals a direct computation", () => {
    // Questions in id order, as ablate pairs them.
    const ids = Array.from({ length: n }, (_, q) => `q${q}`).sort();
    const col = (r: LabelledRun, l: string): number[] => ids.map((id) => (r.byId.get(id)?.label === l ? 1 : 0));
    const ps: number[] = [];
    for (const row of cmp.rows) {
      const b = col(baseline, row.label);
      for (const c of row.changes) {
        const r = col([baseline, edited, third][c.run], row.label);
        const fixed = b.filter((v, q) => v === 1 && r[q] === 0).length;
        const introduced = b.filter((v, q) => v === 0 && r[q] === 1).length;
        assert.deepEqual([c.fixed, c.introduced], [fixed, introduced]);
        assert.equal(c.delta, r.reduce((s, v) => s + v, 0) / n - b.reduce((s, v) => s + v, 0) / n);
        const want = directInterval(b, r, 2000, 3);
        assert.ok(Math.abs(c.ci.lo - want.lo) < 1e-12 && Math.abs(c.ci.hi - want.hi) < 1e-12, `${row.label} ${c.name}`);
        assert.equal(c.p, mcnemarExact(fixed, introduced));
        ps.push(c.p);
      }
    }
    assert.deepEqual(
      cmp.rows.flatMap((r) => r.changes.map((c) => c.p_holm)),
      holmAdjust(ps),
    );
  });

  it("reads as a sentence and a Markdown table: the edit removed the long answers", () => {
    const long = cmp.rows.find((r) => r.label === "answer_too_long")!.changes[0];
    assert.ok(long.fixed > 30 && long.introduced === 0 && long.ci.hi < 0 && long.verdict === "fewer");
    assert.match(
      changeSentence("answer_too_long", long),
      /^removed \d+ answer_too_long \(−\d+\.\d pts \[−\d+\.\d, −\d+\.\d\]\)$/,
    );
    const md = renderFailureComparisonMarkdown(cmp, ["base", "edit | v2", "third"]);
    assert.match(md, /^\| Label \| base \| edit \\\| v2 \| third \| Δ share edit \\\| v2 \[95% CI\] \|/m);
    assert.match(md, /^\| answer_too_long \| \d+ \| \d+ \| 0 \| −\d+\.\d pts/m);
    assert.match(md, /^- edit \\\| v2 removed \d+ answer_too_long/m);
  });
});
