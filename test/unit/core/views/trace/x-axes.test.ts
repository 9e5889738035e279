/** The dashboard's other x axes (wall time, tokens trained), read from what a run's metrics.jsonl logs. */
import * as assert from "node:assert/strict";
import { onXAxis, runXAxes } from "../../../../../src/core/views/trace/x-axes";

describe("training charts' x axes: step, wall time, tokens", () => {
  it("a GRPO run: wall time from each row's time, tokens from trained_tokens summed (not its per-episode mean)", () => {
    const rows = [
      { step: 1, reward: 0.1, tokens: 25, trained_tokens: 100, time: "2026-01-01T00:00:10.000Z" },
      { step: 2, reward: 0.2, tokens: 30, trained_tokens: 50, time: "2026-01-01T00:00:12.500Z" },
    ];
    const axes = runXAxes(rows);
    assert.deepEqual(
      axes.map((a) => [a.kind, a.label, a.points]),
      [
        [
          "wall",
          "wall time (s)",
          [
            [1, 0],
            [2, 2.5],
          ],
        ],
        [
          "tokens",
          "tokens trained",
          [
            [1, 100],
            [2, 150],
          ],
        ],
      ],
    );
    assert.deepEqual(
      onXAxis(
        [
          [1, 0.1],
          [2, 0.2],
          [3, 0.3],
        ],
        axes[1],
      ),
      [
        [100, 0.1],
        [150, 0.2],
      ],
    );
  });

  it("an older run without times offers tokens only; a cookbook run sums its per-iteration time/total", () => {
    assert.deepEqual(
      runXAxes([
        { step: 1, loss: 2, tokens: 1817 },
        { step: 2, loss: 1, tokens: 1549 },
      ]).map((a) => a.kind),
      ["tokens"],
    );
    const cookbook = runXAxes([
      { step: 0, "time/total": 4 },
      { step: 1, "time/total": 6 },
    ]);
    assert.deepEqual(
      cookbook.map((a) => [a.kind, a.points]),
      [
        [
          "wall",
          [
            [0, 4],
            [1, 10],
          ],
        ],
      ],
    );
  });
});
