/**
 * ablate's numbers on small runs whose every value is known (the real-question tests in
 * ablate.test.ts check the statistics' behaviour at scale): the verdict rule at its edges, ties
 * within 1e-9, McNemar's discordant counts, per-run means and costs, the settings a report records,
 * the dropped-question warnings, and how a fingerprint difference is shown. The episodes carry the
 * implied environment's two declared metrics, whatever they are called.
 */
import { strict as assert } from "node:assert";
import { UserError } from "../../../../../src/core/base/errors";
import { EPISODE_FORMAT } from "../../../../../src/core/base/runs/episode-v1";
import { manifestEnvironment } from "../../../../../src/core/envs/manifest-environment";
import type { RunManifest } from "../../../../../src/core/base/runs/manifest";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { minimumDetectableDelta } from "../../../../../src/core/base/stats/power";
import { mcnemarExact, signFlipTest } from "../../../../../src/core/base/stats/significance";
import { sampleSd } from "../../../../../src/core/base/stats/bootstrap";
import { environmentRoles } from "../../../../../src/core/envs/catalog";
import {
  ablate,
  checkSameEnvironment,
  isExpected,
  verdict,
  type AblationInput,
} from "../../../../../src/core/steps/ablate/ablate";
import { manifest } from "./fixtures";

const roles = environmentRoles(manifestEnvironment(undefined).name);
const P = roles.primary.name;
const B = roles.binary.name;

function ep(id: string, primary: number, binary: number, over: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    id,
    question: `question ${id}`,
    answers: [`answer ${id}`],
    format: EPISODE_FORMAT,
    prediction: `prediction ${id}`,
    metrics: { [P]: primary, [B]: binary },
    reward: primary,
    end: "answer",
    searches: [],
    prompt: [1, 2],
    tokens: [3],
    sampled: [1],
    logprobs: [-0.5],
    prefill: 10,
    generated: 1,
    usd: 0.001,
    ...over,
  };
}

/** A run in memory; `null` for one without manifest.json. */
const run = (name: string, episodes: EpisodeRecord[], m: RunManifest | null = manifest()): AblationInput => ({
  name,
  dir: `runs/${name}`,
  manifest: m ?? undefined,
  episodes,
});

describe("analysis: ablate's numbers on small known runs", () => {
  it("calls a Δ better or worse only when the adjusted p is under 0.05 and the interval excludes 0", () => {
    const above = { lo: 0.01, hi: 0.2 };
    const below = { lo: -0.2, hi: -0.01 };
    assert.equal(verdict(0.01, above), "better");
    assert.equal(verdict(0.01, below), "worse");
    assert.equal(verdict(0.05, above), "not distinguishable", "p = α is not under α");
    assert.equal(verdict(0.05, below), "not distinguishable");
    assert.equal(
      verdict(0.049, { lo: 0, hi: 0.2 }),
      "not distinguishable",
      "an interval touching 0 does not exclude it",
    );
    assert.equal(verdict(0.049, { lo: -0.2, hi: 0 }), "not distinguishable");
    assert.equal(verdict(0.01, { lo: -0.1, hi: 0.1 }), "not distinguishable", "test and interval disagree");
    assert.equal(verdict(0.9, above), "not distinguishable");
  });

  it("refuses no runs, and runs of another environment or version, naming both", () => {
    assert.throws(
      () => ablate([]),
      (e: unknown) => e instanceof UserError && e.message === "give at least one run",
    );
    assert.throws(
      () => ablate([run("a", [ep("q1", 1, 1)]), run("b", [ep("q2", 1, 1)])]),
      (e: unknown) =>
        e instanceof UserError &&
        e.message === "the runs share no question ids (a, b): were they run on the same split?",
    );
    const env = manifestEnvironment(undefined);
    const other = (name: string, version: string) =>
      ({ ...manifest(), environment: { name, version } }) as unknown as RunManifest;
    const a = { name: "a", manifest: other(env.name, env.version) };
    checkSameEnvironment([a, { name: "same", manifest: other(env.name, env.version) }]);
    for (const b of [
      { name: "b", manifest: other(env.name, `${env.version}.1`) },
      { name: "b", manifest: other("calculator", env.version) },
    ]) {
      assert.throws(
        () => checkSameEnvironment([a, b]),
        (e: unknown) =>
          e instanceof UserError &&
          e.message ===
            `cannot pair a (${env.name} v${env.version}) with b (${b.manifest.environment!.name} v${b.manifest.environment!.version}): runs of different environments are not comparable`,
      );
    }
  });

  it("per run: means over the shared questions, answered share, searches, cost per question and in total", () => {
    const base = [
      ep("q1", 1, 1, { searches: ["a", "b"] }),
      ep("q2", 0.5, 0, { end: "length", usd: 0.003 }),
      ep("q3", 0, 0),
      ep("q4", 1, 1, { usd: 0.5 }), // not shared: counts in the total only
    ];
    const other = [ep("q3", 1, 1), ep("q2", 0.5, 0), ep("q1", 0, 0, { searches: ["x"] })];
    const r = ablate([run("base", base), run("other", other)], { resamples: 200, now: new Date(0) });
    assert.equal(r.shared, 3);
    assert.equal(r.created, "1970-01-01T00:00:00.000Z");
    const [b, o] = r.runs;
    assert.equal(b.episodes, 4);
    assert.equal(b.dropped, 1);
    assert.equal(o.dropped, 0);
    assert.equal(b.primary.mean, 0.5);
    assert.equal(b.binary.mean, 1 / 3);
    assert.equal(b.answered, 2 / 3);
    assert.equal(b.searches_per_q, 2 / 3);
    assert.ok(Math.abs(b.usd_per_q - 0.005 / 3) < 1e-15, String(b.usd_per_q));
    assert.ok(Math.abs(b.usd_total - 0.505) < 1e-15, String(b.usd_total));
    assert.equal(o.searches_per_q, 1 / 3);
    assert.deepEqual(r.warnings, ["base: 1 of its 4 questions are not in every run and were left out"]);
    assert.deepEqual(b.split, { name: "test", file: "test.jsonl", sha256: manifest().split.sha256 });
    assert.deepEqual(b.search, { closed_book: false, top_k: 3, max_searches: 5, documents: 507000 });
    assert.deepEqual(
      r.questions.map((q) => [q.id, q.question, q.answers, q.prediction, q.primary, q.binary]),
      [
        ["q1", "question q1", ["answer q1"], ["prediction q1", "prediction q1"], [1, 0], [1, 0]],
        ["q2", "question q2", ["answer q2"], ["prediction q2", "prediction q2"], [0.5, 0.5], [0, 0]],
        ["q3", "question q3", ["answer q3"], ["prediction q3", "prediction q3"], [0, 1], [0, 1]],
      ],
    );
  });

  it("records the settings it used: 10,000 resamples and seed 0 unless told", () => {
    const eps = [ep("q1", 1, 1), ep("q2", 0, 0)];
    const r = ablate([run("a", eps)]);
    assert.deepEqual(r.settings, {
      resamples: 10_000,
      seed: 0,
      level: 0.95,
      alpha: 0.05,
      power: 0.8,
      interval: "percentile bootstrap",
      correction: "holm",
      expect: [],
    });
    assert.equal(r.format, 2);
    assert.equal(r.kind, "agent-lab.ablation");
    const told = ablate([run("a", eps)], { resamples: 50, seed: 9, expect: ["policy"] });
    assert.deepEqual([told.settings.resamples, told.settings.seed, told.settings.expect], [50, 9, ["policy"]]);
  });

  it("per comparison: McNemar's discordant pairs, the sign-flip p on the differences, their SD and MDE", () => {
    // base right/wrong on 8 questions; run flips q1, q2 to wrong (b = 2) and q5, q6, q7 to right (c = 3).
    const baseB = [1, 1, 1, 0, 0, 0, 0, 1];
    const runB = [0, 0, 1, 0, 1, 1, 1, 1];
    const baseP = [1, 0.9, 0.8, 0.2, 0, 0.1, 0, 1];
    const runP = [0.2, 0.1, 0.8, 0.2, 1, 1, 0.7, 1];
    const ids = baseB.map((_, q) => `q${q}`);
    const r = ablate(
      [
        run(
          "base",
          ids.map((id, q) => ep(id, baseP[q], baseB[q])),
        ),
        run(
          "run",
          ids.map((id, q) => ep(id, runP[q], runB[q])),
        ),
      ],
      { resamples: 500, seed: 3 },
    );
    const c = r.comparisons[0];
    assert.equal(c.run, 1);
    assert.equal(c.name, "run");
    assert.deepEqual([c.binary.baseline_only, c.binary.run_only], [2, 3]);
    assert.equal(c.binary.p, mcnemarExact(2, 3));
    assert.equal(c.binary.test, "McNemar exact");
    const d = runP.map((v, q) => v - baseP[q]);
    assert.equal(c.primary.test, "paired sign-flip permutation");
    assert.ok(Math.abs(c.primary.delta - d.reduce((s, x) => s + x, 0) / 8) < 1e-12);
    assert.ok(Math.abs(c.binary.delta - 1 / 8) < 1e-12);
    assert.ok(Math.abs(c.primary.sd - sampleSd(d)) < 1e-12);
    assert.ok(Math.abs(c.primary.mde - minimumDetectableDelta({ sd: sampleSd(d), n: 8 })) < 1e-12);
    // The sign-flip test draws on its own stream (2 for the first comparison), apart from the bootstrap's 0.
    assert.equal(c.primary.p, signFlipTest(Float64Array.from(d), { resamples: 500, seed: 3, stream: 2 }));
    assert.deepEqual(c.flips.binary, { improved: 3, regressed: 2, unchanged: 3 });
    assert.deepEqual(c.flips.primary, { improved: 3, regressed: 2, unchanged: 3 });
  });

  it("counts a change within 1e-9 as no change, and one just past it as a flip", () => {
    const base = [ep("a", 0.5, 0), ep("b", 0.5, 0), ep("c", 0.5, 0), ep("d", 0.5, 0), ep("e", 0.5, 0), ep("f", 0.5, 0)];
    const other = [
      ep("a", 0.5 + 5e-10, 0),
      ep("b", 0.5 - 5e-10, 0),
      ep("c", 0.5 + 2e-9, 0),
      ep("d", 0.5 - 2e-9, 0),
      ep("e", 0.5 + 1e-9, 0), // exactly the tie's width: still a tie
      ep("f", 0.5 - 1e-9, 0),
    ];
    const r = ablate([run("base", base), run("other", other)], { resamples: 100 });
    assert.deepEqual(r.comparisons[0].flips.primary, { improved: 1, regressed: 1, unchanged: 4 });
    assert.deepEqual(
      r.questions.map((q) => q.flips[0].primary),
      ["unchanged", "unchanged", "improved", "regressed", "unchanged", "unchanged"],
    );
    assert.deepEqual(r.comparisons[0].flips.binary, { improved: 0, regressed: 0, unchanged: 6 });
  });

  it("search settings come from the manifest: documents only when it records a count, none without a manifest", () => {
    const eps = [ep("q1", 1, 1), ep("q2", 0, 0)];
    const m = manifest();
    const noCount = { ...m, search: { ...m.search!, searcher: null } } as RunManifest;
    const r = ablate([run("a", eps, noCount), run("b", eps, null)], { resamples: 50 });
    assert.deepEqual(r.runs[0].search, { closed_book: false, top_k: 3, max_searches: 5 });
    assert.equal(r.runs[1].search, null);
    assert.equal(r.runs[1].split, null);
    assert.deepEqual(r.warnings, [
      "b: no manifest.json, so nothing shows it ran under the same settings as the others",
    ]);
    const noSearch = { ...m, search: undefined } as unknown as RunManifest;
    assert.equal(ablate([run("a", eps, noSearch)], { resamples: 50 }).runs[0].search, null);
  });

  it("--expect names a field or a parent of it, not a field that only starts the same", () => {
    assert.ok(isExpected("policy.checkpoint", ["policy.checkpoint"]));
    assert.ok(isExpected("policy.checkpoint", ["policy"]));
    assert.ok(isExpected("search.searcher.documents", ["search.searcher"]));
    assert.ok(!isExpected("policy.checkpoint", ["pol"]));
    assert.ok(!isExpected("policy", ["policy.checkpoint"]));
    assert.ok(!isExpected("policy.checkpoint", []));
    assert.ok(isExpected("split.sha256", ["x", "split"]));
  });

  it("shows a differing field's values, cutting long ones, and a searcher that is null on one side as one field", () => {
    const eps = [ep("q1", 1, 1), ep("q2", 0, 0)];
    const long = "f".repeat(64);
    const m = manifest();
    const r = ablate(
      [
        run("a", eps, m),
        run("b", eps, manifest({ prompt: long })),
        run("c", eps, { ...m, search: { ...m.search!, searcher: null } } as RunManifest),
      ],
      { resamples: 50, expectAdvice: "tick it" },
    );
    const shown = JSON.stringify(long).slice(0, 37) + "…";
    assert.deepEqual(r.warnings, [
      `b differs from a in more than the thing under test: system_prompt.sha256 ("5e" → ${shown}). If a field is what you meant to change, tick it.`,
      `c differs from a in more than the thing under test: search.searcher ({…} → null). If a field is what you meant to change, tick it.`,
    ]);
    const expected = ablate([run("a", eps, m), run("b", eps, manifest({ prompt: long }))], {
      resamples: 50,
      expect: ["system_prompt", "policy"],
    });
    assert.deepEqual(expected.warnings, ["--expect policy: no run differs from a in that field"]);
    // Without every manifest nothing can be said about an --expect field.
    const bare = ablate([run("a", eps, m), run("b", eps, null)], { resamples: 50, expect: ["policy"] });
    assert.deepEqual(bare.warnings, [
      "b: no manifest.json, so nothing shows it ran under the same settings as the others",
    ]);
    const advice = ablate([run("a", eps, m), run("b", eps, manifest({ topK: 1 }))], { resamples: 50 });
    assert.deepEqual(advice.warnings, [
      "b differs from a in more than the thing under test: search.top_k (3 → 1). If a field is what you meant to change, name it with --expect FIELD.",
    ]);
  });
});
