import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  readStepRewards,
  rewardTrend,
  renderTrend,
  tQuantile975,
} from "../../../../../src/core/steps/pipeline/reward-trend";

describe("core/steps/pipeline reward trend", () => {
  it("slope, its t interval and first/last thirds of a rising series", () => {
    // 0.1 + 0.02·step with alternating ±0.01 noise.
    const rewards = Array.from({ length: 12 }, (_, i) => 0.1 + 0.02 * (i + 1) + (i % 2 === 0 ? 0.01 : -0.01));
    const t = rewardTrend(rewards);
    assert.ok(Math.abs(t.slope - 0.02) < 0.002, String(t.slope));
    assert.ok(t.slopeCi && t.slopeCi[0] > 0 && t.slopeCi[0] < 0.02 && t.slopeCi[1] > 0.02);
    assert.ok(Math.abs(t.firstThird - (0.1 + 0.02 * 2.5)) < 1e-9);
    assert.ok(Math.abs(t.lastThird - (0.1 + 0.02 * 10.5)) < 1e-9);
    assert.match(
      renderTrend(t),
      /first 4 step\(s\) 0\.150 → last 4 0\.310; slope \+0\.0(19|20)\d\d? per step \(95% CI \+0\.0\d+ to \+0\.0\d+\)/,
    );
  });

  it("a flat noisy series has an interval across 0; two steps have none", () => {
    const t = rewardTrend([0.3, 0.1, 0.3, 0.1, 0.3, 0.1]);
    assert.ok(t.slopeCi![0] < 0 && t.slopeCi![1] > 0);
    assert.equal(rewardTrend([0.1, 0.2]).slopeCi, null);
    assert.equal(tQuantile975(10), 2.228);
    assert.ok(Math.abs(tQuantile975(200) - 1.972) < 0.01);
  });

  it("reads metrics.jsonl: last line of a step wins, a torn last line is skipped", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-trend-"));
    try {
      const file = join(dir, "metrics.jsonl");
      writeFileSync(
        file,
        ['{"step":2,"reward":0.5}', '{"step":1,"reward":0.2}', '{"step":2,"reward":0.4}', '{"step":3,"rew'].join("\n"),
      );
      assert.deepEqual(readStepRewards(file), [0.2, 0.4]);
      assert.deepEqual(readStepRewards(join(dir, "absent.jsonl")), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
