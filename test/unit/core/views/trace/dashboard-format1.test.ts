/**
 * The training dashboard on eval runs an older build wrote (format-1 episodes and summary.json, with
 * top-level `em`/`f1` slots) of each environment: a checkpoint's val score is the primary metric's
 * mean that run's summary recorded, read back under the environment's declared name.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSummary } from "../../../../../src/core/base/runs/run-files";
import { environmentMetrics, environmentRoles } from "../../../../../src/core/envs/catalog";
import { readDashboard } from "../../../../../src/core/views/trace/dashboard-view";
import { fakeManifest, formatOneSummary } from "../../base/runs/fakes";

const SAMPLER = "tinker://run/sampler_weights/s1";

describe("trace: dashboard over format-1 eval runs of each environment", () => {
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-dash-v1-"))));
  after(() => rmSync(root, { recursive: true, force: true }));

  const cases = [
    // HotpotQA: exact match and token F1 per episode; its manifests name no environment.
    { env: "hotpotqa", environment: undefined, slots: [1, 0, 0, 1, 0].map((em, i) => ({ em, f1: em || 0.2 * i })) },
    // GSM8K: the grader's verdict in both slots.
    {
      env: "gsm8k",
      environment: { name: "gsm8k", version: "1" },
      slots: [1, 0, 1, 1, 0, 0, 1].map((c) => ({ em: c, f1: c })),
    },
  ];

  for (const { env, environment, slots } of cases) {
    it(`${env}: the checkpoint's val score is the one its format-1 summary recorded`, () => {
      const runsDir = join(root, env, "runs");
      const trainDir = join(runsDir, "grpo");
      const evalDir = join(runsDir, "val-s1");
      mkdirSync(trainDir, { recursive: true });
      mkdirSync(evalDir);
      const envField = environment ? { environment } : {};
      writeFileSync(join(trainDir, "manifest.json"), JSON.stringify({ kind: "grpo", ...envField }));
      writeFileSync(
        join(trainDir, "checkpoints.jsonl"),
        JSON.stringify({ name: "s1", batch: 1, sampler_path: SAMPLER }) + "\n",
      );
      writeFileSync(
        join(evalDir, "manifest.json"),
        JSON.stringify({ ...fakeManifest(), ...envField, policy: { ...fakeManifest().policy, checkpoint: SAMPLER } }),
      );
      // Episode lines and summary.json as a build before the metric formats wrote them.
      writeFileSync(
        join(evalDir, "episodes.jsonl"),
        slots.map((s, i) => JSON.stringify({ id: `q${i}`, ...s, end: "answer", searches: [], usd: 0 }) + "\n").join(""),
      );
      const mean = (pick: (s: { em: number; f1: number }) => number) =>
        slots.reduce((t, s) => t + pick(s), 0) / slots.length;
      const old = { em: mean((s) => s.em), f1: mean((s) => s.f1) };
      writeFileSync(join(evalDir, "summary.json"), JSON.stringify(formatOneSummary({ n: slots.length, ...old })));

      const primary = environmentRoles(env).primary;
      const summary = readSummary(evalDir, environmentMetrics)!;
      assert.equal(summary.metrics[primary.name], old.f1, "the summary reads back with its recorded primary mean");
      const v = readDashboard(trainDir);
      assert.deepEqual(v.problems, []);
      assert.equal(v.valMetric, primary.label);
      const [c] = v.checkpoints;
      assert.equal(c.evalRun, "val-s1");
      assert.equal(c.n, slots.length);
      assert.ok(Math.abs(c.primary!.mean - summary.metrics[primary.name]) < 1e-12, `${c.primary!.mean} vs ${old.f1}`);
      assert.ok(c.primary!.lo <= c.primary!.mean && c.primary!.mean <= c.primary!.hi);
    });
  }
});
